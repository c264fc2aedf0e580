<?php

declare(strict_types=1);

namespace Qafila\Service;

use Qafila\Page;
use Qafila\Types\PaymentLink;

final class PaymentLinks extends AbstractService
{
    public function create(array $params, array $opts = []): PaymentLink
    {
        return $this->post('/api/payment-links', $params, PaymentLink::class, $opts);
    }

    public function retrieve(string $id): PaymentLink
    {
        return $this->get('/api/payment-links/' . self::id($id), PaymentLink::class);
    }

    /** @return Page<PaymentLink> */
    public function list(array $params = []): Page
    {
        return $this->page('/api/payment-links', PaymentLink::class, $params);
    }

    public function cancel(string $id): PaymentLink
    {
        return $this->put('/api/payment-links/' . self::id($id) . '/cancel', null, PaymentLink::class, self::UNSAFE);
    }
}
