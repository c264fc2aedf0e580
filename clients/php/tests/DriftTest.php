<?php
// The library's generated classes (src/Types, src/Params) against the live service's /openapi.json:
// a field the service adds to (or drops from) a response, a request body or a list's query
// parameters fails here, until `python clients/codegen/generate.py --openapi <url>` is run and committed.

declare(strict_types=1);

namespace Qafila\Tests;

use Qafila\Exception\QafilaException;

function resolve(array $doc, mixed $node): mixed
{
    while (is_array($node) && isset($node['$ref'])) {
        $cur = $doc;
        foreach (explode('/', substr($node['$ref'], 2)) as $part) {
            $cur = $cur[$part];
        }
        $node = $cur;
    }
    return $node;
}

/** Property names at a source, or null when the service has no such operation. */
function props_at(array $doc, string $method, string $path, string $where, array $segs): ?array
{
    $op = $doc['paths'][$path][strtolower($method)] ?? null;
    if ($op === null) {
        return null;
    }
    if ($where === 'query') {
        $names = [];
        foreach ($op['parameters'] ?? [] as $p) {
            $p = resolve($doc, $p);
            if (($p['in'] ?? '') === 'query') {
                $names[] = $p['name'];
            }
        }
        return $names;
    }
    if ($where === 'request') {
        $schema = resolve($doc, resolve($doc, $op['requestBody'] ?? [])['content']['application/json']['schema'] ?? []);
    } else {
        $schema = resolve($doc, resolve($doc, $op['responses'][$where] ?? [])['content']['application/json']['schema'] ?? []);
    }
    foreach ($segs as $seg) {
        $schema = resolve($doc, $schema['properties'][$seg] ?? []);
        $t = $schema['type'] ?? null;
        if ($t === 'array' || (is_array($t) && in_array('array', $t, true))) {
            $schema = resolve($doc, $schema['items'] ?? []);
        }
    }
    return array_keys($schema['properties'] ?? []);
}

function declared_fields(string $name, string $kind): array
{
    return $kind === 'response' ? ('Qafila\\Types\\' . $name)::fieldNames() : constant('Qafila\\Params\\' . $name . '::FIELDS');
}

$sources = json_decode((string) file_get_contents(__DIR__ . '/../src/schema-sources.json'), true);

test('every generated class is in the sources list', function () use ($sources) {
    foreach ($sources['kinds'] as $name => $kind) {
        check(class_exists(($kind === 'response' ? 'Qafila\\Types\\' : 'Qafila\\Params\\') . $name), "no class for $name");
    }
    same(count($sources['kinds']), count(glob(__DIR__ . '/../src/Types/*.php')) + count(glob(__DIR__ . '/../src/Params/*.php')));
});

foreach ($sources['sources'] as $name => $list) {
    test("drift: $name matches /openapi.json", function () use ($name, $list, $sources) {
        $doc = openapi();
        $found = array_map(fn ($s) => props_at($doc, ...$s), $list);
        $present = array_values(array_filter($found, fn ($f) => $f !== null));
        if (!$present) {
            skip("$name: none of its operations is in /openapi.json yet ("
                . implode(', ', array_map(fn ($s) => "$s[0] $s[1]", $list)) . ')');
        }
        $gone = array_keys(array_filter($found, fn ($f) => $f === null));
        same([], $gone, "$name: operations gone from the service:");
        $expected = array_unique(array_merge(...$present));
        $have = declared_fields($name, $sources['kinds'][$name]);
        same([], array_values(array_diff($expected, $have)), "$name: the service has fields the library lacks:");
        same([], array_values(array_diff($have, $expected)), "$name: the library has fields the service dropped:");
    });
}

test('drift: the exceptions carry every field of the service error object', function () {
    $doc = openapi();
    $err = resolve($doc, resolve($doc, $doc['components']['schemas']['Error'])['properties']['error']);
    same([], array_values(array_diff(array_keys($err['properties']), QafilaException::ERROR_FIELDS)));
});

test('drift: the check notices an added field', function () {
    $fields = \Qafila\Types\PaymentIntent::fieldNames();
    $props = array_fill_keys($fields, []);
    $props['surcharge'] = ['type' => 'integer'];
    $doc = ['paths' => ['/v1/payments/{id}' => ['get' => ['responses' => ['200' => ['content' => [
        'application/json' => ['schema' => ['type' => 'object', 'properties' => $props]]]]]]]]];
    same(['surcharge'], array_values(array_diff(props_at($doc, 'GET', '/v1/payments/{id}', '200', []), $fields)));
});
