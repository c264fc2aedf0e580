<?php

declare(strict_types=1);

namespace Qafila\Http;

/** PHP streams, for installations without ext-curl. */
final class StreamTransport implements Transport
{
    public function send(string $method, string $url, array $headers, ?string $body, float $timeout): Response
    {
        $lines = [];
        foreach ($headers as $k => $v) {
            $lines[] = "$k: $v";
        }
        $ctx = stream_context_create(['http' => [
            'method' => $method,
            'header' => implode("\r\n", $lines),
            'content' => $body ?? '',
            'timeout' => $timeout,
            'ignore_errors' => true,
            'follow_location' => 0,
            'protocol_version' => 1.1,
        ]]);
        $error = null;
        set_error_handler(static function (int $no, string $msg) use (&$error): bool {
            $error = $msg;
            return true;
        });
        try {
            $stream = fopen($url, 'rb', false, $ctx);
        } finally {
            restore_error_handler();
        }
        if ($stream === false) {
            $connectFailed = $error !== null && (str_contains($error, 'Connection refused') || str_contains($error, 'getaddrinfo'));
            throw new NetworkException('could not connect: ' . ($error ?? 'unknown error'), $connectFailed);
        }
        $content = stream_get_contents($stream);
        $meta = stream_get_meta_data($stream);
        fclose($stream);
        if ($content === false || !empty($meta['timed_out'])) {
            throw new NetworkException('the answer did not arrive (timeout or reset)');
        }
        $status = 0;
        $respHeaders = [];
        foreach ($meta['wrapper_data'] ?? [] as $line) {
            if (preg_match('#^HTTP/\S+\s+(\d{3})#', $line, $m)) {
                $status = (int) $m[1];
                $respHeaders = [];
            } elseif (str_contains($line, ':')) {
                [$k, $v] = explode(':', $line, 2);
                $respHeaders[strtolower(trim($k))] = trim($v);
            }
        }
        return new Response($status, $respHeaders, $content);
    }
}
