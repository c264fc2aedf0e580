<?php

declare(strict_types=1);

namespace Qafila\Service;

use Qafila\Types\BnplEligibility;

/** Buy now, pay later (bnpl_split4, bnpl_split3). Parameters: Qafila\Params\BnplEligibilityParams::FIELDS. */
final class Bnpl extends AbstractService
{
    /**
     * GET /v1/bnpl/eligibility: 'eligible' with the schedule, or 'not_eligible' with the reason.
     *
     * @param array{method: string, amount: int, currency: string, phone: string, email?: string} $params
     */
    public function eligibility(array $params): BnplEligibility
    {
        return BnplEligibility::from($this->client->request('GET', '/v1/bnpl/eligibility', $params));
    }
}
