<?php

declare(strict_types=1);

namespace Qafila\Service;

use Qafila\Types\InstallmentOptions;
use Qafila\Types\InstallmentPlans;

/** Installments (taksit) of Turkish credit cards: a card's options and the merchant's plans. */
final class Installments extends AbstractService
{
    /** GET /v1/installments: the counts a card (its first 6 or 8 digits) gets for an amount. */
    public function options(string $bin, int $amount, string $currency = 'TRY'): InstallmentOptions
    {
        return InstallmentOptions::from($this->client->request('GET', '/v1/installments',
            ['bin' => $bin, 'amount' => $amount, 'currency' => $currency]));
    }

    public function plans(): InstallmentPlans
    {
        return $this->get('/api/installments/plans', InstallmentPlans::class);
    }

    /**
     * Replaces every plan (a program left out offers none).
     * @param list<array{program: string, paid_by?: string, options: list<array{count: int, commission_bps: int}>}> $plans
     */
    public function replacePlans(array $plans): InstallmentPlans
    {
        return $this->put('/api/installments/plans', ['plans' => $plans], InstallmentPlans::class, self::SAFE);
    }
}
