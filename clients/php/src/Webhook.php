<?php

declare(strict_types=1);

namespace Qafila;

use Qafila\Exception\SignatureVerificationException;

/**
 * Webhook verification. `x-service-signature` is the lowercase hex HMAC-SHA-256 of the raw body
 * keyed with the endpoint's secret; `x-service-signature-v2` is the HMAC of "{timestamp}.{body}"
 * with `x-service-timestamp` (Unix seconds), which also refuses replays of old deliveries.
 */
final class Webhook
{
    public const SIGNATURE_HEADER = 'x-service-signature';
    public const SIGNATURE_V2_HEADER = 'x-service-signature-v2';
    public const TIMESTAMP_HEADER = 'x-service-timestamp';

    /**
     * Checks the signature of the raw body (as received, before json_decode) in constant time.
     *
     * @return array<string, mixed> the event: id, type, created, livemode, data.object, merchant_id
     * @throws SignatureVerificationException
     */
    public static function verify(string $payload, ?string $signature, string $secret): array
    {
        if ($secret === '') {
            throw new SignatureVerificationException('no webhook secret given');
        }
        $expected = hash_hmac('sha256', $payload, $secret);
        if (!hash_equals($expected, strtolower(trim((string) $signature)))) {
            throw new SignatureVerificationException('webhook signature does not match the body and secret');
        }
        return self::parse($payload);
    }

    /**
     * The v2 signature with its timestamp; a timestamp more than $tolerance seconds from now is a replay.
     *
     * @return array<string, mixed>
     * @throws SignatureVerificationException
     */
    public static function verifyV2(string $payload, ?string $signatureV2, string|int|null $timestamp, string $secret,
                                    int $tolerance = 300, ?int $now = null): array
    {
        if ($secret === '') {
            throw new SignatureVerificationException('no webhook secret given');
        }
        $ts = trim((string) $timestamp);
        if (!ctype_digit($ts)) {
            throw new SignatureVerificationException('missing or malformed x-service-timestamp');
        }
        if ($tolerance > 0 && abs(($now ?? time()) - (int) $ts) > $tolerance) {
            throw new SignatureVerificationException('webhook timestamp is outside the tolerance (a replay?)');
        }
        $expected = hash_hmac('sha256', $ts . '.' . $payload, $secret);
        if (!hash_equals($expected, strtolower(trim((string) $signatureV2)))) {
            throw new SignatureVerificationException('webhook signature does not match the body and secret');
        }
        return self::parse($payload);
    }

    /**
     * From the request's headers: v2 (timestamped) when present, else x-service-signature.
     *
     * @param array<string, string|list<string>> $headers any case
     * @return array<string, mixed>
     */
    public static function constructEvent(string $payload, array $headers, string $secret, int $tolerance = 300): array
    {
        $h = [];
        foreach ($headers as $k => $v) {
            $h[strtolower((string) $k)] = is_array($v) ? implode(', ', $v) : (string) $v;
        }
        if (!empty($h[self::SIGNATURE_V2_HEADER]) && !empty($h[self::TIMESTAMP_HEADER])) {
            return self::verifyV2($payload, $h[self::SIGNATURE_V2_HEADER], $h[self::TIMESTAMP_HEADER], $secret, $tolerance);
        }
        return self::verify($payload, $h[self::SIGNATURE_HEADER] ?? null, $secret);
    }

    /** @return array<string, mixed> */
    private static function parse(string $payload): array
    {
        try {
            $event = json_decode($payload, true, 512, JSON_THROW_ON_ERROR);
        } catch (\JsonException $e) {
            throw new SignatureVerificationException('webhook body is not JSON: ' . $e->getMessage());
        }
        if (!is_array($event) || !is_string($event['id'] ?? null) || !is_string($event['type'] ?? null)) {
            throw new SignatureVerificationException('webhook body is not an event envelope (id, type, data)');
        }
        return $event;
    }
}
