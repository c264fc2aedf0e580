<?php

declare(strict_types=1);

namespace Qafila\Service;

use Qafila\Page;
use Qafila\Types\Payment;
use Qafila\Types\PaymentCapture;
use Qafila\Types\PaymentVoid;
use Qafila\Types\Refund;

/** /api/payments: card payments routed to providers; capture, void, refund. */
final class Payments extends AbstractService
{
    public function create(array $params, array $opts = []): Payment
    {
        return $this->post('/api/payments/create', $params, Payment::class, $opts);
    }

    public function retrieve(string $id): Payment
    {
        return $this->get('/api/payments/' . self::id($id), Payment::class);
    }

    /** @return Page<Payment> */
    public function list(array $params = []): Page
    {
        return $this->page('/api/payments/list', Payment::class, $params);
    }

    /** @param array{amount?: int} $params */
    public function capture(string $id, array $params = [], array $opts = []): PaymentCapture
    {
        return $this->post('/api/payments/' . self::id($id) . '/capture', $params, PaymentCapture::class, $opts);
    }

    public function void(string $id, array $opts = []): PaymentVoid
    {
        return $this->post('/api/payments/' . self::id($id) . '/void', [], PaymentVoid::class, $opts);
    }

    /**
     * Full refund without 'amount'; partial with one.
     *
     * @param array{amount?: int, reason?: string} $params
     */
    public function refund(string $id, array $params = [], array $opts = []): Refund
    {
        return $this->post('/api/payments/' . self::id($id) . '/refund', $params, Refund::class, $opts);
    }
}
