<?php

declare(strict_types=1);

namespace Qafila\Exception;

/** 403: the key may not do this. */
class PermissionException extends QafilaException
{
}
