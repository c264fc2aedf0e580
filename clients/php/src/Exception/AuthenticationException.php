<?php

declare(strict_types=1);

namespace Qafila\Exception;

/** 401: missing or invalid API key. */
class AuthenticationException extends QafilaException
{
}
