<?php
// No service needed: retry rules, idempotency keys, error mapping and the webhook helper.

declare(strict_types=1);

namespace Qafila\Tests;

use Qafila\Exception\ApiConnectionException;
use Qafila\Exception\ApiErrorException;
use Qafila\Exception\IdempotencyException;
use Qafila\Exception\QafilaException;
use Qafila\Exception\RateLimitException;
use Qafila\Exception\SignatureVerificationException;
use Qafila\Http\NetworkException;
use Qafila\Http\Response;
use Qafila\Http\Transport;
use Qafila\Qafila;
use Qafila\Webhook;

/** Answers from a script; records each request. */
final class Scripted implements Transport
{
    public array $seen = [];

    public function __construct(private array $answers)
    {
    }

    public function send(string $method, string $url, array $headers, ?string $body, float $timeout): Response
    {
        $this->seen[] = compact('method', 'url', 'headers', 'body');
        $a = array_shift($this->answers);
        if ($a instanceof \Throwable) {
            throw $a;
        }
        return $a;
    }
}

function ok(int $status, array $body, array $headers = []): Response
{
    return new Response($status, $headers + ['content-type' => 'application/json'], json_encode($body));
}

function err(int $status, string $code, string $message, ?string $detail = null, array $headers = []): Response
{
    $e = ['type' => 'x', 'code' => $code, 'message' => $message, 'param' => null, 'request_id' => 'req_t'];
    if ($detail !== null) {
        $e['detail'] = $detail;
    }
    return ok($status, ['error' => $e], $headers);
}

/** @return array{Qafila, Scripted, \ArrayObject} */
function scripted(mixed ...$answers): array
{
    $t = new Scripted($answers);
    $sleeps = new \ArrayObject();
    $c = new Qafila('sk_test_x', ['base_url' => 'http://svc.test', 'transport' => $t,
        'sleep' => function (float $s) use ($sleeps) { $sleeps[] = $s; }]);
    return [$c, $t, $sleeps];
}

const INTENT = ['id' => 'pay_1', 'object' => 'payment_intent', 'status' => 'requires_payment_method', 'amount' => 100,
    'currency' => 'TRY', 'metadata' => [], 'fee' => ['amount' => 3, 'currency' => 'TRY', 'rate' => '0.029',
    'breakdown' => ['processing' => 3, 'currency_conversion' => 0, 'network' => 0]]];

test('offline: one idempotency key per call, sent again on every retry; backoff grows', function () {
    [$c, $t, $sleeps] = scripted(new NetworkException('refused', true), err(500, 'api_error', 'boom'),
        err(503, 'unavailable', 'down'), ok(201, INTENT));
    $pi = $c->paymentIntents->create(['amount' => 100, 'currency' => 'TRY', 'payment_method' => 'card']);
    same('pay_1', $pi->id);
    same(3, $pi->fee->breakdown->processing);
    same(4, count($t->seen));
    same(1, count(array_unique(array_map(fn ($r) => $r['headers']['Idempotency-Key'], $t->seen))));
    check($sleeps[0] <= $sleeps[1] && $sleeps[1] <= $sleeps[2], 'backoff grows');
    same(['amount' => 100, 'currency' => 'TRY', 'payment_method' => 'card'], json_decode($t->seen[0]['body'], true));
    same('Bearer sk_test_x', $t->seen[0]['headers']['Authorization']);
});

test('offline: a new call gets a new key; a given key is used', function () {
    [$c, $t] = scripted(ok(201, INTENT), ok(201, INTENT), ok(201, INTENT));
    $c->paymentIntents->create(['amount' => 100]);
    $c->paymentIntents->create(['amount' => 100]);
    $c->paymentIntents->create(['amount' => 100], ['idempotency_key' => 'order-1']);
    $k = array_map(fn ($r) => $r['headers']['Idempotency-Key'], $t->seen);
    check($k[0] !== $k[1]);
    same('order-1', $k[2]);
});

test('offline: 429 honours Retry-After, then gives up after max_retries', function () {
    [$c, $t, $sleeps] = scripted(err(429, 'rate_limit_exceeded', 'slow', null, ['retry-after' => '3']),
        ok(200, ['object' => 'list', 'data' => [], 'has_more' => false]));
    $c->paymentIntents->list();
    same(2, count($t->seen));
    check($sleeps[0] >= 3.0 && $sleeps[0] < 3.2);
    [$c, $t] = scripted(...array_fill(0, 4, err(429, 'rate_limit_exceeded', 'slow', null, ['retry-after' => '1'])));
    $e = throws(RateLimitException::class, fn () => $c->paymentIntents->list());
    same(1.0, $e->getRetryAfter());
    same(4, count($t->seen));
});

test('offline: 409 in flight is retried; 409 with different parameters is not', function () {
    [$c, $t] = scripted(err(409, 'idempotency_conflict', 'Conflict',
        'A request with this idempotency key is still being processed; retry shortly'), ok(201, INTENT));
    same('pay_1', $c->paymentIntents->create(['amount' => 1])->id);
    same(2, count($t->seen));
    [$c, $t] = scripted(err(409, 'idempotency_conflict', 'This idempotency key was already used with different parameters'));
    $e = throws(IdempotencyException::class, fn () => $c->paymentIntents->create(['amount' => 1]));
    check(!$e->isInFlight());
    same(1, count($t->seen));
});

test('offline: 4xx answers are not retried and carry their fields', function () {
    foreach ([400, 401, 402, 404] as $status) {
        [$c, $t] = scripted(err($status, 'x', 'no'));
        $e = throws(QafilaException::class, fn () => $c->payments->retrieve('pay_1'));
        same($status, $e->status);
        same('req_t', $e->requestId);
        same(1, count($t->seen));
    }
});

test('offline: network failures exhaust into ApiConnectionException', function () {
    [$c, $t] = scripted(...array_fill(0, 4, new NetworkException('reset')));
    throws(ApiConnectionException::class, fn () => $c->paymentIntents->retrieve('pay_1'));
    same(4, count($t->seen));
});

test('offline: a state-change PUT is retried only when the request surely did not run', function () {
    [$c, $t] = scripted(new NetworkException('reset'));
    throws(ApiConnectionException::class, fn () => $c->subscriptions->pause('sub_1'));
    same(1, count($t->seen));
    [$c, $t] = scripted(new NetworkException('refused', true), ok(200, ['id' => 'sub_1', 'status' => 'paused']));
    same('paused', $c->subscriptions->pause('sub_1')->status);
    [$c, $t] = scripted(err(500, 'api_error', 'boom'));
    throws(ApiErrorException::class, fn () => $c->subscriptions->pause('sub_1'));
    same(1, count($t->seen));
});

test('offline: v1 list filters and cursors; unknown fields kept; JSON round trip', function () {
    [$c, $t] = scripted(
        ok(200, ['object' => 'list', 'data' => [['id' => 'pay_a'], ['id' => 'pay_b', 'brand_new' => 1]], 'has_more' => true, 'next_cursor' => 'pay_b']),
        new Response(200, [], '{"object":"list","data":[{"id":"pay_1","metadata":{}}],"has_more":false,"next_cursor":null}'));
    $all = iterator_to_array($c->paymentIntents->list(['limit' => 2, 'created' => ['gte' => 1767225600]])->autoPagingIterator(), false);
    same(['pay_a', 'pay_b', 'pay_1'], array_map(fn ($x) => $x->id, $all));
    same(1, $all[1]['brand_new']);
    parse_str((string) parse_url($t->seen[0]['url'], PHP_URL_QUERY), $q0);
    same(['limit' => '2', 'created' => ['gte' => '1767225600']], $q0);
    check(str_contains($t->seen[0]['url'], 'created%5Bgte%5D=1767225600'));
    check(str_contains($t->seen[1]['url'], 'starting_after=pay_b'));
    same([], $all[2]->metadata);
    same('{"id":"pay_1","metadata":{}}', $all[2]->toJson());
});

const BODY = '{"id":"evt_1","type":"payment.succeeded","created":1,"livemode":false,"data":{"object":{"id":"pay_1"}},"merchant_id":"mer_1"}';

test('offline: Webhook::verify', function () {
    $sig = hash_hmac('sha256', BODY, 'whsec_1');
    $ev = Webhook::verify(BODY, $sig, 'whsec_1');
    same('payment.succeeded', $ev['type']);
    same('pay_1', $ev['data']['object']['id']);
    same('evt_1', Webhook::verify(BODY, strtoupper($sig), 'whsec_1')['id']);
    foreach ([substr($sig, 0, -1) . ($sig[-1] === '0' ? '1' : '0'), '', null, 'zz'] as $bad) {
        throws(SignatureVerificationException::class, fn () => Webhook::verify(BODY, $bad, 'whsec_1'));
    }
    throws(SignatureVerificationException::class, fn () => Webhook::verify(BODY . ' ', $sig, 'whsec_1'));
});

test('offline: Webhook::verifyV2 and replays', function () {
    $ts = time();
    $sig2 = hash_hmac('sha256', "$ts." . BODY, 'whsec_1');
    same('evt_1', Webhook::verifyV2(BODY, $sig2, $ts, 'whsec_1')['id']);
    same('evt_1', Webhook::constructEvent(BODY, ['X-Service-Signature-V2' => $sig2, 'X-Service-Timestamp' => (string) $ts], 'whsec_1')['id']);
    throws(SignatureVerificationException::class, fn () => Webhook::verifyV2(BODY, $sig2, $ts, 'whsec_1', 300, $ts + 301));
});
