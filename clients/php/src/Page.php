<?php

declare(strict_types=1);

namespace Qafila;

/**
 * One page of a list. Iterating the page gives its items; `autoPagingIterator()` walks this page
 * and every following one with the same filters.
 *
 * @template T of Resource
 * @implements \IteratorAggregate<int, T>
 */
final class Page implements \IteratorAggregate, \Countable
{
    /**
     * @param list<T> $data
     * @param array<string, mixed> $raw
     * @param \Closure(string): Page<T> $fetch
     */
    public function __construct(
        public readonly array $data,
        public readonly bool $hasMore,
        public readonly ?string $nextCursor,
        public readonly ?int $total,
        public readonly array $raw,
        private readonly \Closure $fetch,
    ) {
    }

    /** starting_after for the next page: the service's next_cursor, else the last item's id. */
    public function cursor(): ?string
    {
        if ($this->nextCursor) {
            return $this->nextCursor;
        }
        $last = $this->data === [] ? null : $this->data[array_key_last($this->data)];
        return $last instanceof Resource ? ($last['id'] ?? null) : null;
    }

    /** @return Page<T>|null */
    public function nextPage(): ?Page
    {
        $cursor = $this->cursor();
        if (!$this->hasMore || $cursor === null) {
            return null;
        }
        return ($this->fetch)($cursor);
    }

    /** @return \Generator<int, T> */
    public function autoPagingIterator(): \Generator
    {
        for ($page = $this; $page !== null; $page = $page->nextPage()) {
            foreach ($page->data as $item) {
                yield $item;
            }
        }
    }

    public function getIterator(): \ArrayIterator
    {
        return new \ArrayIterator($this->data);
    }

    public function count(): int
    {
        return count($this->data);
    }
}
