<?php

declare(strict_types=1);

namespace Qafila;

use Qafila\Exception\ApiConnectionException;
use Qafila\Exception\ApiErrorException;
use Qafila\Exception\AuthenticationException;
use Qafila\Exception\CardException;
use Qafila\Exception\ConflictException;
use Qafila\Exception\IdempotencyException;
use Qafila\Exception\InvalidRequestException;
use Qafila\Exception\NotFoundException;
use Qafila\Exception\PermissionException;
use Qafila\Exception\QafilaException;
use Qafila\Exception\RateLimitException;
use Qafila\Http\CurlTransport;
use Qafila\Http\NetworkException;
use Qafila\Http\Response;
use Qafila\Http\Retry;
use Qafila\Http\StreamTransport;
use Qafila\Http\Transport;

/**
 * The client: one property per resource.
 *
 *     $client = new Qafila\Qafila('sk_test_...', ['base_url' => 'http://127.0.0.1:8000']);
 *     $intent = $client->paymentIntents->create(['amount' => 10000, 'currency' => 'TRY', 'payment_method' => 'card']);
 *
 * Options: base_url (default QAFILA_BASE_URL, else http://127.0.0.1:8000), max_retries (3),
 * timeout (30 s per attempt), backoff_base (0.5 s), backoff_max (8 s), max_retry_after (60 s),
 * transport (a Http\Transport), sleep (callable taking seconds).
 */
final class Qafila
{
    public const VERSION = '0.1.0';
    public const DEFAULT_BASE_URL = 'http://127.0.0.1:8000';

    public readonly string $baseUrl;
    public readonly Service\PaymentIntents $paymentIntents;
    public readonly Service\Payments $payments;
    public readonly Service\Customers $customers;
    public readonly Service\PaymentLinks $paymentLinks;
    public readonly Service\Subscriptions $subscriptions;
    public readonly Service\Invoices $invoices;
    public readonly Service\Balance $balance;
    public readonly Service\Settlements $settlements;
    public readonly Service\Webhooks $webhooks;
    public readonly Service\PaymentMethodTypes $paymentMethodTypes;
    public readonly Service\TestHelpers $testHelpers;
    public readonly Service\Installments $installments;
    public readonly Service\Bnpl $bnpl;

    private string $apiKey;
    private int $maxRetries;
    private float $timeout;
    private float $backoffBase;
    private float $backoffMax;
    private float $maxRetryAfter;
    private Transport $transport;
    /** @var callable(float): void */
    private $sleep;

    /** @param array<string, mixed> $options */
    public function __construct(?string $apiKey = null, array $options = [])
    {
        $apiKey = $apiKey ?: (getenv('QAFILA_API_KEY') ?: null);
        if (!$apiKey) {
            throw new QafilaException('no API key: pass one or set QAFILA_API_KEY');
        }
        $this->apiKey = $apiKey;
        $this->baseUrl = rtrim((string) ($options['base_url'] ?? (getenv('QAFILA_BASE_URL') ?: self::DEFAULT_BASE_URL)), '/');
        $this->maxRetries = max(0, (int) ($options['max_retries'] ?? 3));
        $this->timeout = (float) ($options['timeout'] ?? 30.0);
        $this->backoffBase = (float) ($options['backoff_base'] ?? 0.5);
        $this->backoffMax = (float) ($options['backoff_max'] ?? 8.0);
        $this->maxRetryAfter = (float) ($options['max_retry_after'] ?? 60.0);
        $this->transport = $options['transport'] ?? (function_exists('curl_init') ? new CurlTransport() : new StreamTransport());
        $this->sleep = $options['sleep'] ?? static function (float $s): void { usleep((int) ($s * 1_000_000)); };

        $this->paymentIntents = new Service\PaymentIntents($this);
        $this->payments = new Service\Payments($this);
        $this->customers = new Service\Customers($this);
        $this->paymentLinks = new Service\PaymentLinks($this);
        $this->subscriptions = new Service\Subscriptions($this);
        $this->invoices = new Service\Invoices($this);
        $this->balance = new Service\Balance($this);
        $this->settlements = new Service\Settlements($this);
        $this->webhooks = new Service\Webhooks($this);
        $this->paymentMethodTypes = new Service\PaymentMethodTypes($this);
        $this->testHelpers = new Service\TestHelpers($this);
        $this->installments = new Service\Installments($this);
        $this->bnpl = new Service\Bnpl($this);
    }

    /**
     * Any operation, answered as decoded JSON (objects as \stdClass), with the same retries and
     * idempotency keys as the resource methods. A POST without $idempotencyKey gets a new one,
     * made once here and sent again on every retry.
     *
     * @param array<string, mixed>|null $query
     * @param array<string, mixed>|null $body
     */
    public function request(string $method, string $path, ?array $query = null, ?array $body = null,
                            ?string $idempotencyKey = null, string $retry = Retry::SAFE): mixed
    {
        $method = strtoupper($method);
        $url = $this->baseUrl . $path;
        $query = array_filter($query ?? [], static fn ($v) => $v !== null);
        if ($query) {
            $query = array_map(static fn ($v) => is_bool($v) ? ($v ? 'true' : 'false') : $v, $query);
            $url .= '?' . http_build_query($query, '', '&', PHP_QUERY_RFC3986);
        }
        $headers = [
            'Authorization' => 'Bearer ' . $this->apiKey,
            'Accept' => 'application/json',
            'User-Agent' => 'qafila-php/' . self::VERSION . ' php/' . PHP_VERSION,
        ];
        $key = $idempotencyKey ?? ($method === 'POST' ? self::uuid4() : null);
        if ($key !== null) {
            $headers['Idempotency-Key'] = $key;
        }
        $payload = null;
        if ($body !== null) {
            $headers['Content-Type'] = 'application/json';
            $payload = json_encode($body === [] ? new \stdClass() : $body,
                JSON_UNESCAPED_SLASHES | JSON_UNESCAPED_UNICODE | JSON_THROW_ON_ERROR);
        }
        for ($attempt = 0; ; $attempt++) {
            try {
                $response = $this->transport->send($method, $url, $headers, $payload, $this->timeout);
            } catch (NetworkException $e) {
                $delay = Retry::delayAfterNetwork($retry, $e, $attempt, $this->maxRetries, $this->backoffBase, $this->backoffMax);
                if ($delay === null) {
                    throw new ApiConnectionException('could not reach the service: ' . $e->getMessage(), previous: $e);
                }
                ($this->sleep)($delay);
                continue;
            }
            if ($response->status >= 200 && $response->status < 300) {
                if ($response->body === '') {
                    return new \stdClass();
                }
                try {
                    return json_decode($response->body, false, 512, JSON_THROW_ON_ERROR);
                } catch (\JsonException) {
                    throw new QafilaException("the service answered {$response->status} with a body that is not JSON",
                        status: $response->status, requestId: $response->headers['x-request-id'] ?? null);
                }
            }
            $error = self::errorFrom($response);
            $delay = Retry::delayAfterError($retry, $error, $attempt, $this->maxRetries, $this->backoffBase,
                $this->backoffMax, $this->maxRetryAfter);
            if ($delay === null) {
                throw $error;
            }
            ($this->sleep)($delay);
        }
    }

    public static function errorFrom(Response $r): QafilaException
    {
        $body = json_decode($r->body, true);
        $err = is_array($body) && is_array($body['error'] ?? null) ? $body['error'] : [];
        $message = (string) ($err['message'] ?? ($r->body !== '' ? substr($r->body, 0, 200) : "HTTP {$r->status}"));
        $code = $err['code'] ?? null;
        $cls = match (true) {
            $r->status === 404 => NotFoundException::class,
            in_array($r->status, [400, 413, 415, 422], true) => InvalidRequestException::class,
            $r->status === 401 => AuthenticationException::class,
            $r->status === 402 => CardException::class,
            $r->status === 403 => PermissionException::class,
            $r->status === 409 => $code === 'idempotency_conflict' ? IdempotencyException::class : ConflictException::class,
            $r->status === 429 => RateLimitException::class,
            $r->status >= 500 => ApiErrorException::class,
            default => QafilaException::class,
        };
        $str = static fn ($v) => is_scalar($v) ? (string) $v : null;
        return new $cls($message, $r->status, $str($err['type'] ?? null), $str($code), $str($err['param'] ?? null),
            $str($err['detail'] ?? null), $str($err['decline_code'] ?? null),
            $str($err['request_id'] ?? null) ?? ($r->headers['x-request-id'] ?? null), $r->headers, $body,
            permission: $str($err['permission'] ?? null));
    }

    /**
     * @template T of Resource
     * @param class-string<T> $class
     * @param array<string, mixed> $query
     * @return Page<T>
     */
    public function listPage(string $path, string $class, array $query, ?string $cursor = null): Page
    {
        $q = $query;
        if ($cursor !== null) {
            $q['starting_after'] = $cursor;
        }
        $raw = $this->request('GET', $path, $q);
        $data = array_map(static fn ($x) => $class::from($x), $raw->data ?? []);
        $total = $raw->total_count ?? ($raw->total ?? null);
        return new Page($data, (bool) ($raw->has_more ?? false), $raw->next_cursor ?? null,
            $total === null ? null : (int) $total, Resource::plain($raw),
            fn (string $next) => $this->listPage($path, $class, $query, $next));
    }

    private static function uuid4(): string
    {
        $b = random_bytes(16);
        $b[6] = chr((ord($b[6]) & 0x0f) | 0x40);
        $b[8] = chr((ord($b[8]) & 0x3f) | 0x80);
        return vsprintf('%s%s-%s-%s-%s-%s%s%s', str_split(bin2hex($b), 4));
    }
}
