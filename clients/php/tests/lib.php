<?php
// A plain test runner (no PHPUnit): test('name', fn) registers, run_all() runs and prints
// "ok|SKIP|FAIL - name" lines and, last, "N passed, N failed".

declare(strict_types=1);

namespace Qafila\Tests;

final class Skip extends \Exception
{
}

final class Failure extends \Exception
{
}

final class Registry
{
    /** @var list<array{string, callable}> */
    public static array $tests = [];
}

function test(string $name, callable $fn): void
{
    Registry::$tests[] = [$name, $fn];
}

function skip(string $reason): never
{
    throw new Skip($reason);
}

function check(bool $condition, string $message = 'check failed'): void
{
    if (!$condition) {
        throw new Failure($message);
    }
}

function same(mixed $expected, mixed $actual, string $message = ''): void
{
    if ($expected !== $actual) {
        throw new Failure(trim($message . ' expected ' . var_export($expected, true) . ', got ' . var_export($actual, true)));
    }
}

/**
 * @template E of \Throwable
 * @param class-string<E> $class
 * @return E
 */
function throws(string $class, callable $fn, string $message = ''): \Throwable
{
    try {
        $fn();
    } catch (\Throwable $e) {
        if ($e instanceof $class) {
            return $e;
        }
        throw new Failure(trim("$message expected $class, got " . get_class($e) . ': ' . $e->getMessage()));
    }
    throw new Failure(trim("$message expected $class, nothing was thrown"));
}

function run_all(?string $filter = null): int
{
    $passed = $failed = $skipped = 0;
    foreach (Registry::$tests as [$name, $fn]) {
        if ($filter !== null && !str_contains($name, $filter)) {
            continue;
        }
        $started = microtime(true);
        try {
            $fn();
            $passed++;
            printf("ok - %s (%.2fs)\n", $name, microtime(true) - $started);
        } catch (Skip $s) {
            $skipped++;
            echo "SKIP - $name: {$s->getMessage()}\n";
        } catch (\Throwable $e) {
            $failed++;
            $where = $e instanceof Failure ? self_trace($e) : get_class($e) . ' at ' . $e->getFile() . ':' . $e->getLine();
            echo "FAIL - $name: {$e->getMessage()} ($where)\n";
        }
    }
    if ($skipped) {
        echo "$skipped skipped\n";
    }
    echo "$passed passed, $failed failed\n";
    return $failed === 0 ? 0 : 1;
}

function self_trace(\Throwable $e): string
{
    foreach ($e->getTrace() as $frame) {
        if (isset($frame['file']) && !str_ends_with($frame['file'], 'lib.php')) {
            return basename($frame['file']) . ':' . $frame['line'];
        }
    }
    return basename($e->getFile()) . ':' . $e->getLine();
}

// ------------------------------------------------------------------ live service

function live(): array
{
    $key = getenv('QAFILA_API_KEY') ?: '';
    $url = rtrim(getenv('QAFILA_BASE_URL') ?: '', '/');
    if ($key === '' || $url === '') {
        if (getenv('QAFILA_REQUIRE_LIVE') === '1') {
            throw new Failure('QAFILA_API_KEY and QAFILA_BASE_URL must be set (QAFILA_REQUIRE_LIVE=1)');
        }
        skip('no live service: set QAFILA_API_KEY and QAFILA_BASE_URL (clients/run_tests.sh does)');
    }
    return [$key, $url];
}

function openapi(): array
{
    static $doc = null;
    if ($doc === null) {
        [, $url] = live();
        $doc = json_decode((string) file_get_contents($url . '/openapi.json'), true, 512, JSON_THROW_ON_ERROR);
    }
    return $doc;
}

function require_route(string $method, string $path): void
{
    if (!isset(openapi()['paths'][$path][strtolower($method)])) {
        skip("$method $path is not in the service's /openapi.json yet (being built)");
    }
}

function uid(): string
{
    return bin2hex(random_bytes(5));
}

const CARD = ['number' => '4242424242424242', 'exp_month' => 12, 'exp_year' => 2030, 'cvc' => '123'];
