<?php

declare(strict_types=1);

namespace Qafila\Exception;

/** 402: the payment was declined; see $declineCode. */
class CardException extends QafilaException
{
}
