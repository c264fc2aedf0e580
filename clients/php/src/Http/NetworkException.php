<?php

declare(strict_types=1);

namespace Qafila\Http;

/**
 * A request got no answer. `connectFailed`: the connection was never made, so the request surely
 * did not run (a state-changing PUT may then be retried too).
 */
final class NetworkException extends \RuntimeException
{
    public function __construct(string $message, public readonly bool $connectFailed = false, ?\Throwable $previous = null)
    {
        parent::__construct($message, 0, $previous);
    }
}
