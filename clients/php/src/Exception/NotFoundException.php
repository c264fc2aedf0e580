<?php

declare(strict_types=1);

namespace Qafila\Exception;

/** 404: no such object. */
class NotFoundException extends InvalidRequestException
{
}
