<?php

declare(strict_types=1);

namespace Qafila\Service;

use Qafila\Page;
use Qafila\Types\WebhookEndpoint;
use Qafila\Types\WebhookEventRecord;
use Qafila\Types\WebhookTestResult;

/** Endpoints (configure answers the signing secret, once), events, test deliveries. Verifying: Qafila\Webhook. */
final class Webhooks extends AbstractService
{
    /** @param array{url: string, events?: list<string>} $params */
    public function configure(array $params, array $opts = []): WebhookEndpoint
    {
        return $this->post('/api/webhooks/configure', $params, WebhookEndpoint::class, $opts);
    }

    /** @return Page<WebhookEndpoint> */
    public function listEndpoints(array $params = []): Page
    {
        return $this->page('/api/webhooks/endpoints', WebhookEndpoint::class, $params);
    }

    public function disableEndpoint(string $id, array $opts = []): WebhookEndpoint
    {
        return $this->post('/api/webhooks/endpoints/' . self::id($id) . '/disable', [], WebhookEndpoint::class, $opts);
    }

    /** @return Page<WebhookEventRecord> */
    public function listEvents(array $params = []): Page
    {
        return $this->page('/api/webhooks/events', WebhookEventRecord::class, $params);
    }

    public function retrieveEvent(string $id): WebhookEventRecord
    {
        return $this->get('/api/webhooks/events/' . self::id($id), WebhookEventRecord::class);
    }

    public function retryEvent(string $id, array $opts = []): WebhookEventRecord
    {
        return $this->post('/api/webhooks/events/' . self::id($id) . '/retry', [], WebhookEventRecord::class, $opts);
    }

    /** @param array{event: string, endpoint?: string} $params */
    public function test(array $params, array $opts = []): WebhookTestResult
    {
        return $this->post('/api/webhooks/test', $params, WebhookTestResult::class, $opts);
    }
}
