<?php

declare(strict_types=1);

namespace Qafila\Service;

use Qafila\Types\Balance as BalanceType;

final class Balance extends AbstractService
{
    public function retrieve(): BalanceType
    {
        return $this->get('/api/balance', BalanceType::class);
    }
}
