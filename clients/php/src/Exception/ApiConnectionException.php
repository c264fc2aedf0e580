<?php

declare(strict_types=1);

namespace Qafila\Exception;

/** No answer: connection refused or reset, timeout. Retried before being thrown. */
class ApiConnectionException extends QafilaException
{
}
