<?php
// Create a 10000 TRY card intent, confirm it with the test method pm_card_visa, read it back, walk
// the intents list (page size 2, first 5 items) and print the retrieved intent as one JSON line.
//   QAFILA_API_KEY=sk_test_... QAFILA_BASE_URL=http://127.0.0.1:8000 php examples/quickstart.php
declare(strict_types=1);

require __DIR__ . '/../vendor/autoload.php';

use Qafila\Qafila;

$client = new Qafila(getenv('QAFILA_API_KEY') ?: null, ['base_url' => getenv('QAFILA_BASE_URL') ?: null]);

$intent = $client->paymentIntents->create(['amount' => 10000, 'currency' => 'TRY', 'payment_method' => 'card']);
$client->paymentIntents->confirm($intent->id, ['payment_method_id' => 'pm_card_visa']);
$intent = $client->paymentIntents->retrieve($intent->id);

$n = 0;
foreach ($client->paymentIntents->list(['limit' => 2])->autoPagingIterator() as $pi) {
    fwrite(STDERR, "{$pi->id} {$pi->status} {$pi->amount} {$pi->currency}\n");
    if (++$n === 5) {
        break;
    }
}

echo $intent->toJson(), "\n";
