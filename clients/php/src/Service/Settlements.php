<?php

declare(strict_types=1);

namespace Qafila\Service;

use Qafila\Page;
use Qafila\Types\Settlement;

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
}
