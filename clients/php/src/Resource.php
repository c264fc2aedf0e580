<?php

declare(strict_types=1);

namespace Qafila;

/**
 * Base of the generated resource classes (src/Types): public typed properties, one per field the
 * service documents; nested objects are resources too (`$intent->fee->breakdown->processing`).
 * `toArray()` / `json_encode($resource)` give the JSON exactly as received, including fields this
 * version of the library does not know yet; `$resource['field']` reads from it too.
 *
 * @implements \ArrayAccess<string, mixed>
 */
abstract class Resource implements \JsonSerializable, \ArrayAccess
{
    /** @var array<string, array{0: class-string<Resource>, 1: bool}> field => [class, is a list] */
    public const NESTED = [];

    private mixed $raw = null;

    /** @var array<string, list<string>> */
    private static array $fieldCache = [];

    /** The public fields of this type (what the service documents). @return list<string> */
    public static function fieldNames(): array
    {
        return self::$fieldCache[static::class] ??= array_values(array_map(
            static fn (\ReflectionProperty $p) => $p->getName(),
            array_filter((new \ReflectionClass(static::class))->getProperties(\ReflectionProperty::IS_PUBLIC),
                static fn (\ReflectionProperty $p) => !$p->isStatic()),
        ));
    }

    /** @param array<string, mixed>|\stdClass|null $data */
    public static function from(array|\stdClass|null $data): ?static
    {
        if ($data === null) {
            return null;
        }
        $obj = new static();
        $arr = $data instanceof \stdClass ? get_object_vars($data) : $data;
        foreach (static::fieldNames() as $name) {
            if (!array_key_exists($name, $arr)) {
                continue;
            }
            $value = $arr[$name];
            if ($value !== null && isset(static::NESTED[$name])) {
                [$cls, $isList] = static::NESTED[$name];
                if ($isList && is_array($value)) {
                    $value = array_map(static fn ($v) => is_array($v) || $v instanceof \stdClass ? $cls::from($v) : $v, $value);
                } elseif (is_array($value) || $value instanceof \stdClass) {
                    $value = $cls::from($value);
                }
            } else {
                $value = self::plain($value);
            }
            try {
                $obj->$name = $value;
            } catch (\TypeError) {
                // a value of another type than documented: left null here, still in toArray()
            }
        }
        $obj->raw = $data;
        return $obj;
    }

    /** JSON objects as associative arrays. */
    public static function plain(mixed $v): mixed
    {
        if ($v instanceof \stdClass) {
            $v = get_object_vars($v);
        }
        if (is_array($v)) {
            return array_map([self::class, 'plain'], $v);
        }
        return $v;
    }

    /** @return array<string, mixed> */
    public function toArray(): array
    {
        return self::plain($this->raw ?? []);
    }

    public function jsonSerialize(): mixed
    {
        return $this->raw ?? new \stdClass();
    }

    public function toJson(): string
    {
        return json_encode($this, JSON_UNESCAPED_SLASHES | JSON_UNESCAPED_UNICODE | JSON_THROW_ON_ERROR);
    }

    public function offsetExists(mixed $offset): bool
    {
        return array_key_exists($offset, $this->toArray());
    }

    public function offsetGet(mixed $offset): mixed
    {
        return $this->toArray()[$offset] ?? null;
    }

    public function offsetSet(mixed $offset, mixed $value): void
    {
        throw new \LogicException('resources are read-only');
    }

    public function offsetUnset(mixed $offset): void
    {
        throw new \LogicException('resources are read-only');
    }
}
