<?php

declare(strict_types=1);

namespace Qafila\Service;

use Qafila\Page;
use Qafila\Types\Settlement;
use Qafila\Types\SettlementTransaction;

final class Settlements extends AbstractService
{
    /** @return Page<Settlement> */
    public function list(array $params = []): Page
    {
        return $this->page('/api/settlements', Settlement::class, $params);
    }

    public function retrieve(string $id): Settlement
    {
        return $this->get('/api/settlements/' . self::id($id), Settlement::class);
    }

    /**
     * The payments, refunds and fees a settlement is made of.
     *
     * @return Page<SettlementTransaction>
     */
    public function listTransactions(string $id, array $params = []): Page
    {
        return $this->page('/api/settlements/' . self::id($id) . '/transactions', SettlementTransaction::class, $params);
    }
}
