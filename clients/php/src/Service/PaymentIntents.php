<?php

declare(strict_types=1);

namespace Qafila\Service;

use Qafila\Page;
use Qafila\Types\PaymentIntent;

/** /v1/payments: payment intents. Parameters: Qafila\Params\PaymentIntent*Params::FIELDS. */
final class PaymentIntents extends AbstractService
{
    public function create(array $params, array $opts = []): PaymentIntent
    {
        return $this->post('/v1/payments/intent', $params, PaymentIntent::class, $opts);
    }

    public function confirm(string $id, array $params = [], array $opts = []): PaymentIntent
    {
        return $this->post('/v1/payments/' . self::id($id) . '/confirm', $params, PaymentIntent::class, $opts);
    }

    public function retrieve(string $id): PaymentIntent
    {
        return $this->get('/v1/payments/' . self::id($id), PaymentIntent::class);
    }

    public function cancel(string $id, array $params = [], array $opts = []): PaymentIntent
    {
        return $this->post('/v1/payments/' . self::id($id) . '/cancel', $params, PaymentIntent::class, $opts);
    }

    /**
     * Full refund without 'amount'; partial with one. The intent stays 'succeeded' while partly
     * refunded (amount_refunded grows) and is 'refunded' once nothing is left; ->refund is the refund made.
     *
     * @param array{amount?: int, reason?: string, idempotency_key?: string} $params
     */
    public function refund(string $id, array $params = [], array $opts = []): PaymentIntent
    {
        return $this->post('/v1/payments/' . self::id($id) . '/refund', $params, PaymentIntent::class, $opts);
    }

    /**
     * BNPL: capture 'amount' (all that is still authorized without it) of a 'requires_capture' intent;
     * it stays 'requires_capture' until all is captured ('succeeded').
     *
     * @param array{amount?: int, idempotency_key?: string} $params
     */
    public function capture(string $id, array $params = [], array $opts = []): PaymentIntent
    {
        return $this->post('/v1/payments/' . self::id($id) . '/capture', $params, PaymentIntent::class, $opts);
    }

    /**
     * Filters: limit, starting_after, status, currency, payment_method, created => ['gte' => ..., 'lte' => ...]
     * (or 'created[gte]'), Unix seconds.
     *
     * @return Page<PaymentIntent>
     */
    public function list(array $params = []): Page
    {
        if (isset($params['created']) && is_array($params['created'])) {
            foreach ($params['created'] as $op => $v) {
                $params["created[$op]"] = $v;
            }
            unset($params['created']);
        }
        return $this->page('/v1/payments', PaymentIntent::class, $params);
    }
}
