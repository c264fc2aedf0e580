<?php
// php tests/run.php [name filter]: runs tests/*Test.php; the last line is "N passed, N failed".

declare(strict_types=1);

require __DIR__ . '/../vendor/autoload.php';
require __DIR__ . '/lib.php';

foreach (glob(__DIR__ . '/*Test.php') as $file) {
    require $file;
}
exit(\Qafila\Tests\run_all($argv[1] ?? null));
