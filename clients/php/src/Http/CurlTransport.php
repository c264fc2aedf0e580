<?php

declare(strict_types=1);

namespace Qafila\Http;

final class CurlTransport implements Transport
{
    private const CONNECT_ERRORS = [6, 7]; // CURLE_COULDNT_RESOLVE_HOST, CURLE_COULDNT_CONNECT

    public function send(string $method, string $url, array $headers, ?string $body, float $timeout): Response
    {
        $ch = curl_init($url);
        $lines = [];
        foreach ($headers as $k => $v) {
            $lines[] = "$k: $v";
        }
        $lines[] = 'Expect:';
        $respHeaders = [];
        curl_setopt_array($ch, [
            CURLOPT_CUSTOMREQUEST => $method,
            CURLOPT_HTTPHEADER => $lines,
            CURLOPT_RETURNTRANSFER => true,
            CURLOPT_FOLLOWLOCATION => false,
            CURLOPT_TIMEOUT_MS => (int) ($timeout * 1000),
            CURLOPT_CONNECTTIMEOUT_MS => (int) (min($timeout, 10.0) * 1000),
            CURLOPT_HEADERFUNCTION => static function ($ch, string $line) use (&$respHeaders): int {
                $parts = explode(':', $line, 2);
                if (count($parts) === 2) {
                    $respHeaders[strtolower(trim($parts[0]))] = trim($parts[1]);
                } elseif (str_starts_with($line, 'HTTP/')) {
                    $respHeaders = [];
                }
                return strlen($line);
            },
        ]);
        if ($body !== null) {
            curl_setopt($ch, CURLOPT_POSTFIELDS, $body);
        }
        $out = curl_exec($ch);
        if ($out === false) {
            $errno = curl_errno($ch);
            $error = curl_error($ch);
            $connectTime = (float) curl_getinfo($ch, CURLINFO_CONNECT_TIME);
            curl_close($ch);
            $connectFailed = in_array($errno, self::CONNECT_ERRORS, true) || ($errno === 28 && $connectTime == 0.0);
            throw new NetworkException("curl error $errno: $error", $connectFailed);
        }
        $status = (int) curl_getinfo($ch, CURLINFO_RESPONSE_CODE);
        curl_close($ch);
        return new Response($status, $respHeaders, (string) $out);
    }
}
