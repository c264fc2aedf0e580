<?php

declare(strict_types=1);

namespace Qafila\Exception;

/**
 * Base of every error. The service answers errors as JSON:
 * {"error": {"type", "code", "message", "param", "detail"?, "decline_code"?, "permission"?, "request_id"}}.
 * `getCode()` is PHP's integer code (the HTTP status); the service's string code is `$errorCode`.
 */
class QafilaException extends \RuntimeException
{
    /** The fields of the service's error object these exceptions carry (checked against /openapi.json by a test). */
    public const ERROR_FIELDS = ['type', 'code', 'message', 'param', 'detail', 'decline_code', 'permission', 'request_id'];

    /**
     * @param array<string, string> $headers lower-case names
     */
    public function __construct(
        string $message,
        public readonly ?int $status = null,
        public readonly ?string $type = null,
        public readonly ?string $errorCode = null,
        public readonly ?string $param = null,
        public readonly ?string $detail = null,
        public readonly ?string $declineCode = null,
        public readonly ?string $requestId = null,
        public readonly array $headers = [],
        public readonly mixed $body = null,
        ?\Throwable $previous = null,
        /** 403 permission_denied: the permission the member's roles lack (refunds_write, ...). */
        public readonly ?string $permission = null,
    ) {
        parent::__construct($message, $status ?? 0, $previous);
    }

    public function getStatus(): ?int { return $this->status; }
    public function getErrorCode(): ?string { return $this->errorCode; }
    public function getDeclineCode(): ?string { return $this->declineCode; }
    public function getPermission(): ?string { return $this->permission; }
    public function getParam(): ?string { return $this->param; }
    public function getRequestId(): ?string { return $this->requestId; }
}
