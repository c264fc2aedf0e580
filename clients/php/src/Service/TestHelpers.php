<?php

declare(strict_types=1);

namespace Qafila\Service;

use Qafila\Types\PaymentIntent;

/** Test mode only (a live key is refused with 403). */
final class TestHelpers extends AbstractService
{
    /** The buyer pays the Fawry reference at an outlet: the intent succeeds. */
    public function fawryPay(string $reference): PaymentIntent
    {
        return $this->post('/api/test-helpers/fawry/pay', ['reference' => $reference], PaymentIntent::class);
    }
}
