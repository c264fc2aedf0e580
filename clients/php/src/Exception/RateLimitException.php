<?php

declare(strict_types=1);

namespace Qafila\Exception;

/** 429; getRetryAfter() is the server's Retry-After in seconds. */
class RateLimitException extends QafilaException
{
    public function getRetryAfter(): ?float
    {
        return \Qafila\Http\Retry::parseRetryAfter($this->headers['retry-after'] ?? null);
    }
}
