<?php

declare(strict_types=1);

namespace Qafila\Http;

/** Sends one HTTP request. Implementations throw NetworkException when no answer arrives. */
interface Transport
{
    /** @param array<string, string> $headers */
    public function send(string $method, string $url, array $headers, ?string $body, float $timeout): Response;
}
