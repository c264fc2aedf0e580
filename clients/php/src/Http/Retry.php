<?php

declare(strict_types=1);

namespace Qafila\Http;

use Qafila\Exception\IdempotencyException;
use Qafila\Exception\QafilaException;

/**
 * When a call may be retried:
 *   SAFE   GETs, keyed POSTs, PUTs that set fields: any failure without an answer, 429,
 *          409 "still being processed", 5xx.
 *   UNSAFE state changes by PUT that the service does not deduplicate (pause, send, ...): only
 *          when the request surely did not run: could not connect, 429, 503.
 */
final class Retry
{
    public const SAFE = 'safe';
    public const UNSAFE = 'unsafe';

    public static function parseRetryAfter(?string $value): ?float
    {
        if ($value === null || trim($value) === '') {
            return null;
        }
        if (is_numeric(trim($value))) {
            return max(0.0, (float) $value);
        }
        $ts = strtotime($value);
        return $ts === false ? null : max(0.0, (float) ($ts - time()));
    }

    /** Seconds to wait before retrying after an error answer, or null to throw it. */
    public static function delayAfterError(string $mode, QafilaException $e, int $attempt, int $maxRetries,
                                           float $base, float $cap, float $maxRetryAfter): ?float
    {
        if ($attempt >= $maxRetries) {
            return null;
        }
        $s = $e->status;
        if ($s === 429 || $s === 503) {
            // the request did not run
        } elseif ($mode !== self::SAFE) {
            return null;
        } elseif ($s === 409) {
            if (!($e instanceof IdempotencyException && $e->isInFlight())) {
                return null;
            }
        } elseif (!in_array($s, [500, 502, 504], true)) {
            return null;
        }
        $wait = self::parseRetryAfter($e->headers['retry-after'] ?? null);
        if ($wait !== null) {
            return $wait > $maxRetryAfter ? null : $wait + mt_rand(0, 100) / 1000;
        }
        return self::backoff($attempt, $base, $cap);
    }

    public static function delayAfterNetwork(string $mode, NetworkException $e, int $attempt, int $maxRetries,
                                             float $base, float $cap): ?float
    {
        if ($attempt >= $maxRetries) {
            return null;
        }
        if ($mode !== self::SAFE && !$e->connectFailed) {
            return null;
        }
        return self::backoff($attempt, $base, $cap);
    }

    /** Exponential, with jitter: between half and all of min(cap, base * 2^attempt). */
    public static function backoff(int $attempt, float $base, float $cap): float
    {
        $d = min($cap, $base * (2 ** $attempt));
        return $d / 2 + (mt_rand() / mt_getrandmax()) * ($d / 2);
    }
}
