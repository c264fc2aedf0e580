<?php

declare(strict_types=1);

namespace Qafila\Exception;

/** A webhook delivery's signature does not match its body and the endpoint secret. */
class SignatureVerificationException extends QafilaException
{
}
