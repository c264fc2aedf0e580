<?php

declare(strict_types=1);

namespace Qafila\Exception;

/** 5xx: the service failed or is unavailable. */
class ApiErrorException extends QafilaException
{
}
