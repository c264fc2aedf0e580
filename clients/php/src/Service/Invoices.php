<?php

declare(strict_types=1);

namespace Qafila\Service;

use Qafila\Page;
use Qafila\Types\Invoice;

final class Invoices extends AbstractService
{
    public function create(array $params, array $opts = []): Invoice
    {
        return $this->post('/api/invoices', $params, Invoice::class, $opts);
    }

    public function retrieve(string $id): Invoice
    {
        return $this->get('/api/invoices/' . self::id($id), Invoice::class);
    }

    /** @return Page<Invoice> */
    public function list(array $params = []): Page
    {
        return $this->page('/api/invoices', Invoice::class, $params);
    }

    /** @param array{channel?: 'email'|'messaging'} $params */
    public function send(string $id, array $params = ['channel' => 'email']): Invoice
    {
        return $this->put('/api/invoices/' . self::id($id) . '/send', $params, Invoice::class, self::UNSAFE);
    }

    public function markPaid(string $id): Invoice
    {
        return $this->put('/api/invoices/' . self::id($id) . '/mark-paid', [], Invoice::class, self::UNSAFE);
    }
}
