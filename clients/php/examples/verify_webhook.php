<?php
// Verify a webhook delivery: the raw body on stdin, the x-service-signature header in QAFILA_SIGNATURE,
// the endpoint's secret in QAFILA_WEBHOOK_SECRET. Prints the event's type; exit 1 when it does not match.
//   QAFILA_SIGNATURE=... QAFILA_WEBHOOK_SECRET=... php examples/verify_webhook.php < body.json
declare(strict_types=1);

require __DIR__ . '/../vendor/autoload.php';

use Qafila\Exception\SignatureVerificationException;
use Qafila\Webhook;

$body = (string) stream_get_contents(STDIN);
try {
    $event = Webhook::verify($body, getenv('QAFILA_SIGNATURE') ?: '', getenv('QAFILA_WEBHOOK_SECRET') ?: '');
} catch (SignatureVerificationException $e) {
    fwrite(STDERR, 'webhook rejected: ' . $e->getMessage() . "\n");
    exit(1);
}
echo $event['type'], "\n";
