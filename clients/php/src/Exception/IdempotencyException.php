<?php

declare(strict_types=1);

namespace Qafila\Exception;

/**
 * 409 idempotency_conflict: the key was used with different parameters (thrown at once), or the
 * first request with it is still running (retried automatically before being thrown).
 */
class IdempotencyException extends ConflictException
{
    public function isInFlight(): bool
    {
        return str_contains($this->getMessage(), 'still being processed')
            || str_contains((string) $this->detail, 'still being processed');
    }
}
