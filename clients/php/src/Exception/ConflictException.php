<?php

declare(strict_types=1);

namespace Qafila\Exception;

/** 409. */
class ConflictException extends QafilaException
{
}
