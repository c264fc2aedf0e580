<?php
// Against a live `qafila serve`: the flows, pagination, a retried POST, typed errors, webhooks.

declare(strict_types=1);

namespace Qafila\Tests;

use Qafila\Exception\AuthenticationException;
use Qafila\Exception\CardException;
use Qafila\Exception\IdempotencyException;
use Qafila\Exception\InvalidRequestException;
use Qafila\Exception\NotFoundException;
use Qafila\Exception\QafilaException;
use Qafila\Exception\SignatureVerificationException;
use Qafila\Http\CurlTransport;
use Qafila\Http\NetworkException;
use Qafila\Http\Response;
use Qafila\Http\Transport;
use Qafila\Qafila;
use Qafila\Resource;
use Qafila\Types;
use Qafila\Webhook;

function client(array $options = []): Qafila
{
    [$key, $url] = live();
    return new Qafila($key, $options + ['base_url' => $url, 'backoff_base' => 0.05]);
}

/** Every field the live service sent is one the class declares (catches gaps in /openapi.json too). */
function known_fields(Resource $r): void
{
    $unknown = array_values(array_diff(array_keys($r->toArray()), $r::fieldNames()));
    same([], $unknown, get_class($r) . ': the service sent fields the library does not know:');
}

test('live: intent create -> confirm -> retrieve', function () {
    $c = client();
    $intent = $c->paymentIntents->create(['amount' => 10000, 'currency' => 'TRY', 'payment_method' => 'card',
        'order_id' => 'php-' . uid(), 'metadata' => ['lib' => 'php']]);
    check($intent instanceof Types\PaymentIntent && str_starts_with($intent->id, 'pay_'));
    same('requires_payment_method', $intent->status);
    same(0, $intent->amount_received);
    check($intent->fee instanceof Types\Fee && $intent->fee->breakdown instanceof Types\FeeBreakdown);
    same(10000 - $intent->fee->amount, $intent->net_amount);
    known_fields($intent);
    $confirmed = $c->paymentIntents->confirm($intent->id, ['payment_method_id' => 'pm_card_visa',
        'return_url' => 'https://shop.example/return']);
    same('succeeded', $confirmed->status);
    check($confirmed->succeeded_at !== null);
    $got = $c->paymentIntents->retrieve($intent->id);
    same('succeeded', $got->status);
    same(10000, $got->amount_received);
    same(['lib' => 'php'], $got->metadata);
    known_fields($got);
});

test('live: local methods: types, redirect, Fawry reference, STC Pay code', function () {
    $c = client();
    $types = $c->paymentMethodTypes->list(['currency' => 'SAR']);
    same(['card', 'mada'], array_slice(array_map(fn ($m) => $m->type, $types->data), 0, 2));
    check($types->data[1] instanceof Types\PaymentMethodType);
    $knet = $c->paymentIntents->create(['amount' => 10000, 'currency' => 'KWD', 'payment_method' => 'knet',
        'return_url' => 'https://shop.example/back']);
    $knet = $c->paymentIntents->confirm($knet->id);
    check($knet->next_action instanceof Types\NextAction);
    same('redirect', $knet->next_action->type);
    known_fields($knet);
    $fawry = $c->paymentIntents->confirm($c->paymentIntents->create(['amount' => 10000, 'currency' => 'EGP',
        'payment_method' => 'fawry'])->id);
    same('display_reference', $fawry->next_action->type);
    same('succeeded', $c->testHelpers->fawryPay($fawry->next_action->reference)->status);
    $stc = $c->paymentIntents->create(['amount' => 10000, 'currency' => 'SAR', 'payment_method' => 'stcpay',
        'phone' => '+966550001122']);
    same('****1122', $c->paymentIntents->confirm($stc->id)->next_action->phone_hint);
    $declined = false;
    try {
        $c->paymentIntents->confirm($stc->id, ['otp' => '000000']);
    } catch (CardException $e) {
        $declined = true;
    }
    check($declined);
    same('succeeded', $c->paymentIntents->confirm($stc->id, ['otp' => '123456'])->status);
});

test('live: payment create -> retrieve -> refund (the /api refund)', function () {
    $c = client();
    $p = $c->payments->create(['amount' => 10000, 'currency' => 'TRY', 'payment_method' => ['type' => 'card', 'card' => CARD],
        'customer' => ['email' => 'php@example.com', 'name' => 'Php'], 'metadata' => ['order' => 'php-1']]);
    check($p instanceof Types\Payment);
    same('succeeded', $p->status);
    check($p->payment_method instanceof Types\PaymentMethodDetails && $p->payment_method->card instanceof Types\CardDetails);
    same('4242', $p->payment_method->card->last4);
    check($p->routing_decision instanceof Types\RoutingDecision && $p->provider !== null);
    known_fields($p);
    same(10000, $c->payments->retrieve($p->id)->amount);
    $r = $c->payments->refund($p->id, ['amount' => 1500, 'reason' => 'damaged']);
    check($r instanceof Types\Refund && str_starts_with($r->refund_id, 'ref_'));
    same(1500, $r->amount_refunded);
    known_fields($r);
    $r2 = $c->payments->refund($p->id);
    same('refunded', $r2->status);
    same(10000, $r2->amount_refunded);
});

test('live: intent refund partly, idempotently, then fully; errors typed', function () {
    $c = client();
    $intent = $c->paymentIntents->create(['amount' => 10000, 'currency' => 'TRY', 'payment_method' => 'card']);
    $c->paymentIntents->confirm($intent->id, ['payment_method_id' => 'pm_card_visa']);
    $key = 'php-refund-' . uid();
    $part = $c->paymentIntents->refund($intent->id, ['amount' => 2500, 'reason' => 'damaged'], ['idempotency_key' => $key]);
    check($part instanceof Types\PaymentIntent);
    same('succeeded', $part->status);
    same(2500, $part->amount_refunded);
    check($part->refund instanceof Types\IntentRefund && str_starts_with($part->refund->id, 'ref_'));
    same(2500, $part->refund->amount);
    same($intent->id, $part->refund->payment_intent);
    known_fields($part);
    known_fields($part->refund);
    $again = $c->paymentIntents->refund($intent->id, ['amount' => 2500, 'reason' => 'damaged'], ['idempotency_key' => $key]);
    same($part->refund->id, $again->refund->id);
    $rest = $c->paymentIntents->refund($intent->id);
    same('refunded', $rest->status);
    same(10000, $rest->amount_refunded);
    same(7500, $rest->refund->amount);
    $e = throws(InvalidRequestException::class, fn () => $c->paymentIntents->refund($intent->id));
    same('invalid_state', $e->errorCode);
    $other = $c->paymentIntents->create(['amount' => 5000, 'currency' => 'KWD', 'payment_method' => 'card']);
    $e = throws(InvalidRequestException::class, fn () => $c->paymentIntents->refund($other->id));
    same('invalid_state', $e->errorCode);
    $c->paymentIntents->confirm($other->id, ['payment_method_id' => 'pm_card_visa']);
    $e = throws(InvalidRequestException::class, fn () => $c->paymentIntents->refund($other->id, ['amount' => 5001]));
    same('amount_too_large', $e->errorCode);
    same('amount', $e->param);
});

test('live: intent cancel with a reason; a second cancel is a typed 400', function () {
    $c = client();
    $intent = $c->paymentIntents->create(['amount' => 10000, 'currency' => 'TRY', 'payment_method' => 'card']);
    $canceled = $c->paymentIntents->cancel($intent->id, ['cancellation_reason' => 'duplicate']);
    same('canceled', $canceled->status);
    same('duplicate', $canceled->cancellation_reason);
    $e = throws(InvalidRequestException::class, fn () => $c->paymentIntents->cancel($intent->id));
    same('invalid_state', $e->errorCode);
});

test('live: capture and void', function () {
    $c = client();
    $a = $c->payments->create(['amount' => 5000, 'currency' => 'KWD', 'capture' => false, 'payment_method' => ['card' => CARD]]);
    same('authorized', $a->status);
    $cap = $c->payments->capture($a->id, ['amount' => 4000]);
    check($cap instanceof Types\PaymentCapture);
    same('captured', $cap->status);
    same(4000, $cap->amount);
    $b = $c->payments->create(['amount' => 5000, 'currency' => 'KWD', 'capture' => false, 'payment_method' => ['card' => CARD]]);
    same('voided', $c->payments->void($b->id)->status);
});

test('live: customers, subscriptions, invoices', function () {
    $c = client();
    $cus = $c->customers->create(['email' => 'php-' . uid() . '@example.com', 'name' => 'Layla']);
    $cus = $c->customers->update($cus->id, ['phone' => '+905551112233']);
    same('+905551112233', $c->customers->retrieve($cus->id)->phone);
    known_fields($cus);
    $sub = $c->subscriptions->create(['customer_id' => $cus->id, 'plan' => 'Pro', 'amount' => 9900, 'currency' => 'TRY',
        'interval' => 'month']);
    same('active', $sub->status);
    known_fields($sub);
    same('paused', $c->subscriptions->pause($sub->id)->status);
    same('active', $c->subscriptions->resume($sub->id)->status);
    same('cancelled', $c->subscriptions->cancel($sub->id)->status);
    $inv = $c->invoices->create(['customer_id' => $cus->id, 'currency' => 'SAR', 'tax_rate' => 15,
        'items' => [['name' => 'Setup', 'amount' => 50000, 'quantity' => 1]]]);
    same(57500, $inv->total);
    check($inv->items[0] instanceof Types\InvoiceItem);
    same('Setup', $inv->items[0]->name);
    known_fields($inv);
    same('sent', $c->invoices->send($inv->id, ['channel' => 'email'])->status);
    same('paid', $c->invoices->markPaid($inv->id)->status);
    $ids = array_map(fn ($i) => $i->id, $c->invoices->list(['customer_id' => $cus->id])->data);
    check(in_array($inv->id, $ids, true));
});

test('live: payment links', function () {
    require_route('POST', '/api/payment-links');
    $c = client();
    $link = $c->paymentLinks->create(['amount' => 25000, 'currency' => 'TRY', 'description' => 'PHP link']);
    check($link instanceof Types\PaymentLink && str_starts_with($link->id, 'lnk_'));
    known_fields($link);
    same($link->url, $c->paymentLinks->retrieve($link->id)->url);
    same('cancelled', $c->paymentLinks->cancel($link->id)->status);
});

test('live: balance', function () {
    require_route('GET', '/api/balance');
    $bal = client()->balance->retrieve();
    check(is_array($bal->available) && is_array($bal->pending));
    known_fields($bal);
});

test('live: settlements', function () {
    require_route('GET', '/api/settlements');
    $c = client();
    $p = $c->payments->create(['amount' => 10000, 'currency' => 'TRY', 'payment_method' => ['card' => CARD]]);
    $c->request('POST', '/api/test-helpers/advance-clock', null, ['days' => 2]);   // test mode: settle now
    $found = false;
    foreach ($c->settlements->list(['limit' => 2])->autoPagingIterator() as $s) {
        check($s instanceof Types\Settlement && str_starts_with($s->id, 'set_'));
        known_fields($s);
        same($s->amount, $c->settlements->retrieve($s->id)->amount);
        $lines = iterator_to_array($c->settlements->listTransactions($s->id, ['limit' => 100])->autoPagingIterator(), false);
        same($s->transactions, count($lines));
        foreach ($lines as $line) {
            check($line instanceof Types\SettlementTransaction);
            known_fields($line);
            $found = $found || $line->payment_id === $p->id;
        }
    }
    check($found, 'the payment is in no settlement after two days');
});

test('live: auto-pagination over more than one page', function () {
    $c = client();
    $created = [];
    for ($i = 0; $i < 5; $i++) {
        $created[] = $c->paymentIntents->create(['amount' => 1000 + $i, 'currency' => 'TRY', 'payment_method' => 'card'])->id;
    }
    $page = $c->paymentIntents->list(['limit' => 2]);
    same(2, count($page));
    check($page->hasMore);
    $pages = 0;
    for ($p = $page; $p !== null; $p = $p->nextPage()) {
        $pages++;
    }
    check($pages >= 3, "only $pages pages");
    $seen = [];
    foreach ($c->paymentIntents->list(['limit' => 2])->autoPagingIterator() as $pi) {
        $seen[] = $pi->id;
    }
    same(count($seen), count(array_unique($seen)), 'auto-pagination repeated an item:');
    same(array_reverse($created), array_slice($seen, 0, 5));
    $filtered = iterator_to_array($c->paymentIntents->list(['limit' => 2, 'status' => 'requires_payment_method'])->autoPagingIterator(), false);
    check(array_reduce($filtered, fn ($ok, $p) => $ok && $p->status === 'requires_payment_method', true));
    same([], array_values(array_diff($created, array_map(fn ($p) => $p->id, $filtered))));
});

/** Forwards to curl; lets the server process the first POST, then throws its answer away. */
final class DropFirstAnswer implements Transport
{
    public array $posts = [];
    public int $dropped = 0;
    private CurlTransport $inner;

    public function __construct()
    {
        $this->inner = new CurlTransport();
    }

    public function send(string $method, string $url, array $headers, ?string $body, float $timeout): Response
    {
        $response = $this->inner->send($method, $url, $headers, $body, $timeout);
        if ($method === 'POST') {
            $this->posts[] = $headers['Idempotency-Key'] ?? null;
            if ($this->dropped === 0) {
                $this->dropped++;
                throw new NetworkException('connection reset after the server answered');
            }
        }
        return $response;
    }
}

test('live: a retried POST creates one payment', function () {
    $drop = new DropFirstAnswer();
    $c = client(['transport' => $drop]);
    $order = 'retry-' . uid();
    $p = $c->payments->create(['amount' => 4321, 'currency' => 'TRY', 'payment_method' => ['card' => CARD],
        'metadata' => ['order' => $order]]);
    same(1, $drop->dropped);
    same(2, count($drop->posts));
    check($drop->posts[0] !== null && $drop->posts[0] === $drop->posts[1], 'the retry must reuse the key');
    $mine = [];
    foreach ($c->payments->list(['limit' => 100])->autoPagingIterator() as $x) {
        if ($x->amount === 4321 && ($c->payments->retrieve($x->id)->metadata['order'] ?? null) === $order) {
            $mine[] = $x->id;
        }
    }
    same([$p->id], $mine);

    $drop2 = new DropFirstAnswer();
    $c2 = client(['transport' => $drop2]);
    $pi = $c2->paymentIntents->create(['amount' => 2345, 'currency' => 'TRY', 'payment_method' => 'card', 'order_id' => $order]);
    same($drop2->posts[0], $drop2->posts[1]);
    $ids = [];
    foreach ($c2->paymentIntents->list(['limit' => 100])->autoPagingIterator() as $x) {
        if ($x->order_id === $order) {
            $ids[] = $x->id;
        }
    }
    same([$pi->id], $ids);
});

test('live: typed errors', function () {
    $c = client();
    [, $url] = live();
    $e = throws(AuthenticationException::class, fn () => (new Qafila('sk_test_not_a_real_key', ['base_url' => $url]))->paymentIntents->list());
    check($e instanceof QafilaException);
    same(401, $e->status);
    same('invalid_api_key', $e->errorCode);
    check(str_starts_with((string) $e->requestId, 'req_'));
    $e = throws(CardException::class, fn () => $c->payments->create(['amount' => 1000, 'currency' => 'TRY',
        'payment_method' => ['card' => ['number' => '4000000000009995'] + CARD]]));
    same(402, $e->status);
    same('insufficient_funds', $e->declineCode);
    same('card_error', $e->type);
    $pi = $c->paymentIntents->create(['amount' => 10000, 'currency' => 'TRY', 'payment_method' => 'card']);
    $e = throws(CardException::class, fn () => $c->paymentIntents->confirm($pi->id, ['payment_method_id' => 'pm_card_insufficientFunds']));
    same('insufficient_funds', $e->declineCode);
    same('payment_method_id', $e->param);
    same('failed', $c->paymentIntents->retrieve($pi->id)->status);
    $pi = $c->paymentIntents->create(['amount' => 10000, 'currency' => 'TRY', 'payment_method' => 'card']);
    $pi = $c->paymentIntents->confirm($pi->id, ['payment_method_id' => 'pm_card_threeDSecureRequired',
        'return_url' => 'https://shop.example/return']);
    same('requires_action', $pi->status);
    check($pi->next_action instanceof Types\NextAction && $pi->next_action->redirect_to_url instanceof Types\RedirectToUrl);
    same('https://shop.example/return', $pi->next_action->redirect_to_url->return_url);
    $e = throws(NotFoundException::class, fn () => $c->paymentIntents->retrieve('pay_doesnotexist000000000'));
    check($e instanceof InvalidRequestException);
    same('resource_not_found', $e->errorCode);
    check($e->requestId !== null);
    $e = throws(InvalidRequestException::class, fn () => $c->paymentIntents->create(['amount' => 0, 'currency' => 'TRY', 'payment_method' => 'card']));
    same('invalid_amount', $e->errorCode);
    same('amount', $e->param);
    $key = 'reuse-' . uid();
    $first = $c->paymentIntents->create(['amount' => 1500, 'currency' => 'TRY', 'payment_method' => 'card'], ['idempotency_key' => $key]);
    $again = $c->paymentIntents->create(['amount' => 1500, 'currency' => 'TRY', 'payment_method' => 'card'], ['idempotency_key' => $key]);
    same($first->id, $again->id);
    $started = microtime(true);
    $e = throws(IdempotencyException::class, fn () => $c->paymentIntents->create(['amount' => 1600, 'currency' => 'TRY',
        'payment_method' => 'card'], ['idempotency_key' => $key]));
    same(409, $e->status);
    check(!$e->isInFlight());
    check(microtime(true) - $started < 2, 'a conflict with different parameters is not retried');
});

/** Accepts one HTTP request on $server (waiting at most $timeout s), answers 200; [body, headers] or null. */
function receive($server, float $timeout): ?array
{
    $conn = @stream_socket_accept($server, $timeout);
    if ($conn === false) {
        return null;
    }
    stream_set_timeout($conn, 5);
    $head = '';
    while (!str_contains($head, "\r\n\r\n") && !feof($conn)) {
        $head .= fread($conn, 1);
    }
    $headers = [];
    foreach (array_slice(explode("\r\n", trim($head)), 1) as $line) {
        [$k, $v] = array_map('trim', explode(':', $line, 2)) + [1 => ''];
        $headers[strtolower($k)] = $v;
    }
    $length = (int) ($headers['content-length'] ?? 0);
    $body = '';
    while (strlen($body) < $length && !feof($conn)) {
        $body .= fread($conn, $length - strlen($body));
    }
    fwrite($conn, "HTTP/1.1 200 OK\r\nContent-Length: 0\r\nConnection: close\r\n\r\n");
    fclose($conn);
    return [$body, $headers];
}

test('live: webhook, a real delivery verifies', function () {
    $c = client();
    $server = stream_socket_server('tcp://127.0.0.1:0', $errno, $errstr);
    check($server !== false, "listen: $errstr");
    $port = (int) substr(strrchr(stream_socket_get_name($server, false), ':'), 1);
    $endpoint = null;
    try {
        $endpoint = $c->webhooks->configure(['url' => "http://127.0.0.1:$port/qafila-hook", 'events' => ['payment.succeeded']]);
        check($endpoint instanceof Types\WebhookEndpoint && $endpoint->secret !== null);
        $p = $c->payments->create(['amount' => 7777, 'currency' => 'TRY', 'payment_method' => ['card' => CARD]]);
        $deadline = microtime(true) + 30;
        $found = null;
        while ($found === null) {
            $left = $deadline - microtime(true);
            check($left > 0, 'no delivery for the payment within 30 s');
            $got = receive($server, $left);
            if ($got === null) {
                continue;
            }
            [$body, $headers] = $got;
            $event = Webhook::verify($body, $headers['x-service-signature'] ?? null, $endpoint->secret);
            if ($event['type'] === 'payment.succeeded' && ($event['data']['object']['id'] ?? null) === $p->id) {
                $found = [$body, $headers, $event];
            }
        }
        [$body, $headers, $event] = $found;
        check(str_starts_with($event['id'], 'evt_'));
        same(7777, $event['data']['object']['amount']);
        same($event['id'], Webhook::constructEvent($body, $headers, $endpoint->secret)['id']);
        throws(SignatureVerificationException::class, fn () => Webhook::verify(str_replace('7777', '7778', $body),
            $headers['x-service-signature'], $endpoint->secret));
        throws(SignatureVerificationException::class, fn () => Webhook::verify($body, $headers['x-service-signature'], 'whsec_wrong'));
    } finally {
        if ($endpoint !== null) {
            $c->webhooks->disableEndpoint($endpoint->id);
        }
        fclose($server);
    }
});

test('live: installments (options, plans, a payment in 3)', function () {
    $c = client();
    $opts = $c->installments->options('554960', 120000, 'TRY');
    check($opts instanceof Types\InstallmentOptions && $opts->options[2] instanceof Types\InstallmentOption);
    same('bonus', $opts->program);
    same(124500, $opts->options[2]->total_amount);
    known_fields($opts);
    $plans = $c->installments->plans();
    check($plans instanceof Types\InstallmentPlans && $plans->data[0] instanceof Types\InstallmentPlan);
    $raw = json_decode(json_encode($c->request('GET', '/api/installments/plans')), true);
    $again = $c->installments->replacePlans($raw['data']);
    same(count($plans->data), count($again->data));
    $p = $c->payments->create(['amount' => 120000, 'currency' => 'TRY', 'installments' => 3,
        'payment_method' => ['card' => ['number' => '5549600000000004'] + CARD]]);
    check($p->installments instanceof Types\Installments);
    same(3, $p->installments->count);
    same(124500, $p->amount_captured);
    $e = throws(InvalidRequestException::class, fn () => $c->payments->create(['amount' => 120000,
        'currency' => 'TRY', 'installments' => 4, 'payment_method' => ['card' => ['number' => '5549600000000004'] + CARD]]));
    same('installments', $e->param);
});
