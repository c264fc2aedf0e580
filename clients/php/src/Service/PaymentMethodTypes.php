<?php

declare(strict_types=1);

namespace Qafila\Service;

use Qafila\Page;
use Qafila\Types\PaymentMethodType;

/** /v1/payment_method_types: the methods a payment in a currency can use (card first). */
final class PaymentMethodTypes extends AbstractService
{
    /** @return Page<PaymentMethodType> */
    public function list(array $params = []): Page
    {
        return $this->page('/v1/payment_method_types', PaymentMethodType::class, $params);
    }
}
