#!/usr/bin/env bash
# The three client libraries against a live `qafila serve`: starts the service on free ports with a
# temporary embedded store, creates a merchant, runs each library's tests and both examples
# (Python: pip install + pytest; Node: npm install + node --test; PHP: composer install +
# tests/run.php), stops the service. Exits non-zero if anything failed; runs everything regardless.
#
#   bash clients/run_tests.sh            (from the repository root; needs python, node >= 18, php >= 8.1, composer)
#   ONLY="python node" bash clients/run_tests.sh
set -uo pipefail
cd "$(dirname "$0")/.."
ROOT=$(pwd)
ONLY=${ONLY:-"python node php"}

WORK=$(mktemp -d /tmp/qafila-clients.XXXXXX)
SERVER_PID=""
cleanup() {
    if [ -n "$SERVER_PID" ] && kill -0 "$SERVER_PID" 2>/dev/null; then
        kill "$SERVER_PID" 2>/dev/null
        for _ in $(seq 50); do kill -0 "$SERVER_PID" 2>/dev/null || break; sleep 0.1; done
        kill -9 "$SERVER_PID" 2>/dev/null || true
    fi
    rm -rf "$WORK"
}
trap cleanup EXIT

FAILED=()
step() {   # step NAME COMMAND...: run, report, remember failures
    local name=$1; shift
    echo
    echo "== clients: $name"
    if "$@"; then
        echo "-- $name: ok"
    else
        echo "-- $name: FAILED"
        FAILED+=("$name")
    fi
}

free_port() {
    python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1]); s.close()'
}

# ---------------------------------------------------------------- the service
PORT=$(free_port)
CRM_PORT=$(free_port)
while [ "$CRM_PORT" = "$PORT" ]; do CRM_PORT=$(free_port); done
export QAFILA_VAR_DIR="$WORK/var"
export QAFILA_RATE_LIMIT_SCALE=100
mkdir -p "$QAFILA_VAR_DIR"
echo "== clients: qafila serve on 127.0.0.1:$PORT (CRM $CRM_PORT), embedded store in $QAFILA_VAR_DIR"
env -u DATABASE_URL -u REDIS_URL qafila serve --host 127.0.0.1 --port "$PORT" --crm-port "$CRM_PORT" \
    > "$WORK/serve.log" 2>&1 &
SERVER_PID=$!
export QAFILA_BASE_URL="http://127.0.0.1:$PORT"
for _ in $(seq 120); do
    curl -sf "$QAFILA_BASE_URL/health" > /dev/null 2>&1 && break
    kill -0 "$SERVER_PID" 2>/dev/null || break
    sleep 0.5
done
if ! curl -sf "$QAFILA_BASE_URL/health" > /dev/null 2>&1; then
    echo "qafila serve did not start:"; tail -50 "$WORK/serve.log"; exit 1
fi
MERCHANT=$(env -u DATABASE_URL -u REDIS_URL qafila create-merchant --email "clients-$(date +%s)@example.com" --name "Client libraries")
QAFILA_API_KEY=$(printf '%s' "$MERCHANT" | python3 -c 'import json, sys; print(json.load(sys.stdin)["secret_key"])')
export QAFILA_API_KEY
export QAFILA_REQUIRE_LIVE=1          # the live tests must not skip for want of a service

# ---------------------------------------------------------------- the examples, the same checks for each language
# A signed webhook body for verify_webhook: the secret and signature made here.
SECRET="whsec_run_tests_$$"
BODY='{"id":"evt_run_tests","type":"payment.succeeded","created":1767225600,"livemode":false,"data":{"object":{"id":"pay_x","object":"payment_intent"}},"merchant_id":"mer_x"}'
printf '%s' "$BODY" > "$WORK/body.json"
SIGNATURE=$(python3 -c 'import hashlib, hmac, sys; print(hmac.new(sys.argv[1].encode(), open(sys.argv[2], "rb").read(), hashlib.sha256).hexdigest())' "$SECRET" "$WORK/body.json")

check_examples() {   # check_examples RUNNER QUICKSTART VERIFY
    local run=$1 quick=$2 verify=$3 out
    out=$($run "$quick" 2> "$WORK/quickstart.err") || { echo "quickstart failed:"; cat "$WORK/quickstart.err"; return 1; }
    if [ "$(printf '%s\n' "$out" | wc -l)" -ne 1 ]; then echo "quickstart: expected one line on stdout, got: $out"; return 1; fi
    printf '%s' "$out" | python3 -c '
import json, sys
pi = json.load(sys.stdin)
assert pi["object"] == "payment_intent" and pi["status"] == "succeeded", pi
assert pi["amount"] == 10000 and pi["currency"] == "TRY" and pi["amount_received"] == 10000, pi
print("quickstart: ok", pi["id"], pi["status"])' || return 1
    [ "$(wc -l < "$WORK/quickstart.err")" -ge 5 ] || { echo "quickstart: expected 5 listed intents on stderr"; cat "$WORK/quickstart.err"; return 1; }
    out=$(QAFILA_SIGNATURE="$SIGNATURE" QAFILA_WEBHOOK_SECRET="$SECRET" $run "$verify" < "$WORK/body.json") \
        || { echo "verify_webhook rejected a good signature"; return 1; }
    [ "$out" = "payment.succeeded" ] || { echo "verify_webhook printed '$out'"; return 1; }
    if QAFILA_SIGNATURE="$SIGNATURE" QAFILA_WEBHOOK_SECRET="wrong" $run "$verify" < "$WORK/body.json" > /dev/null 2> "$WORK/verify.err"; then
        echo "verify_webhook accepted a bad signature"; return 1
    fi
    [ -s "$WORK/verify.err" ] || { echo "verify_webhook: no message on stderr for a bad signature"; return 1; }
    echo "verify_webhook: ok ($out; a bad signature exits 1: $(head -1 "$WORK/verify.err"))"
}

# ---------------------------------------------------------------- Python
python_tests() {
    pip install -q "$ROOT/clients/python[test]" 2>&1 | grep -v -e '^WARNING' -e '^$' || true
    python3 -c 'import qafila, sys; sys.exit(0 if "site-packages" in qafila.__file__ else "qafila-client is not installed")' || return 1
    (cd "$ROOT/clients/python" && python3 -m pytest -q -p no:cacheprovider -rs tests)
}
python_examples() { (cd "$ROOT/clients/python/examples" && check_examples python3 quickstart.py verify_webhook.py); }

# ---------------------------------------------------------------- Node.js
node_tests() {
    (cd "$ROOT/clients/node" && npm install --no-audit --no-fund --loglevel=error && node --test)
}
node_examples() { (cd "$ROOT/clients/node" && check_examples node examples/quickstart.mjs examples/verify_webhook.mjs); }

# ---------------------------------------------------------------- PHP
php_tests() {
    (cd "$ROOT/clients/php" && composer install --no-interaction --no-progress --quiet && test -f vendor/autoload.php \
        && php tests/run.php)
}
php_examples() { (cd "$ROOT/clients/php" && check_examples php examples/quickstart.php examples/verify_webhook.php); }

for lang in $ONLY; do
    step "$lang tests" "${lang}_tests"
    step "$lang examples" "${lang}_examples"
done

echo
if [ ${#FAILED[@]} -ne 0 ]; then
    echo "== clients: FAILED: ${FAILED[*]}"
    echo "-- last lines of the service log:"; tail -30 "$WORK/serve.log"
    exit 1
fi
echo "== clients: all passed ($ONLY)"
