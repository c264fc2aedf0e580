<?php

declare(strict_types=1);

namespace Qafila\Service;

use Qafila\Page;
use Qafila\Types\Subscription;

final class Subscriptions extends AbstractService
{
    public function create(array $params, array $opts = []): Subscription
    {
        return $this->post('/api/subscriptions', $params, Subscription::class, $opts);
    }

    public function retrieve(string $id): Subscription
    {
        return $this->get('/api/subscriptions/' . self::id($id), Subscription::class);
    }

    /** @return Page<Subscription> */
    public function list(array $params = []): Page
    {
        return $this->page('/api/subscriptions', Subscription::class, $params);
    }

    public function pause(string $id): Subscription
    {
        return $this->put('/api/subscriptions/' . self::id($id) . '/pause', null, Subscription::class, self::UNSAFE);
    }

    public function resume(string $id): Subscription
    {
        return $this->put('/api/subscriptions/' . self::id($id) . '/resume', null, Subscription::class, self::UNSAFE);
    }

    public function cancel(string $id): Subscription
    {
        return $this->put('/api/subscriptions/' . self::id($id) . '/cancel', null, Subscription::class, self::UNSAFE);
    }
}
