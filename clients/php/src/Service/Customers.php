<?php

declare(strict_types=1);

namespace Qafila\Service;

use Qafila\Page;
use Qafila\Types\Customer;

final class Customers extends AbstractService
{
    public function create(array $params, array $opts = []): Customer
    {
        return $this->post('/api/customers', $params, Customer::class, $opts);
    }

    public function retrieve(string $id): Customer
    {
        return $this->get('/api/customers/' . self::id($id), Customer::class);
    }

    /** Sets the given fields: safe to repeat, so retried like a GET. */
    public function update(string $id, array $params): Customer
    {
        return $this->put('/api/customers/' . self::id($id), $params, Customer::class, self::SAFE);
    }

    /** @return Page<Customer> */
    public function list(array $params = []): Page
    {
        return $this->page('/api/customers', Customer::class, $params);
    }
}
