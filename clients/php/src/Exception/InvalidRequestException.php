<?php

declare(strict_types=1);

namespace Qafila\Exception;

/** 400, 413, 415, 422: a parameter is missing or malformed, or the operation is not allowed now. */
class InvalidRequestException extends QafilaException
{
}
