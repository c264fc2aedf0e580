<?php

declare(strict_types=1);

namespace Qafila\Service;

use Qafila\Http\Retry;
use Qafila\Page;
use Qafila\Qafila;
use Qafila\Resource;

/**
 * Parameters are arrays with the service's field names (see src/Params for the lists); $opts takes
 * 'idempotency_key' (default: a new key per call, sent again on each retry).
 */
abstract class AbstractService
{
    public function __construct(protected readonly Qafila $client)
    {
    }

    protected static function id(string $id): string
    {
        if ($id === '') {
            throw new \InvalidArgumentException('an object id (a non-empty string) is required');
        }
        return rawurlencode($id);
    }

    /** @param array<string, mixed> $a */
    protected static function clean(array $a): array
    {
        return array_filter($a, static fn ($v) => $v !== null);
    }

    /**
     * @template T of Resource
     * @param class-string<T> $class
     * @param array<string, mixed> $params
     * @param array{idempotency_key?: string} $opts
     * @return T
     */
    protected function post(string $path, array $params, string $class, array $opts = []): Resource
    {
        return $class::from($this->client->request('POST', $path, null, self::clean($params), $opts['idempotency_key'] ?? null));
    }

    /**
     * @template T of Resource
     * @param class-string<T> $class
     * @return T
     */
    protected function get(string $path, string $class): Resource
    {
        return $class::from($this->client->request('GET', $path));
    }

    /**
     * @template T of Resource
     * @param class-string<T> $class
     * @param array<string, mixed>|null $params
     * @return T
     */
    protected function put(string $path, ?array $params, string $class, string $retry): Resource
    {
        return $class::from($this->client->request('PUT', $path, null, $params === null ? null : self::clean($params), null, $retry));
    }

    /**
     * @template T of Resource
     * @param class-string<T> $class
     * @param array<string, mixed> $params
     * @return Page<T>
     */
    protected function page(string $path, string $class, array $params): Page
    {
        return $this->client->listPage($path, $class, self::clean($params));
    }

    protected const SAFE = Retry::SAFE;
    protected const UNSAFE = Retry::UNSAFE;
}
