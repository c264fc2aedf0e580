# Installs (Debian packages) and starts PostgreSQL 15 and Redis 7 on loopback for the suite and
# the benchmark. Source it, then call start_services; it exports QAFILA_CI_DATABASE_URL and
# QAFILA_CI_REDIS_URL. Safe to call again when they already run.
start_services() {
  local sudo="" aspg="runuser -u postgres --"
  [ "$(id -u)" = 0 ] || { sudo="sudo"; aspg="sudo -u postgres"; }
  if ! command -v redis-server >/dev/null || ! ls /usr/lib/postgresql/*/bin/postgres >/dev/null 2>&1; then
    $sudo apt-get update -qq || true
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq postgresql redis-server >/dev/null
  fi
  local ver
  ver=$(ls /usr/lib/postgresql | sort -n | tail -1)
  if ! pg_lsclusters -h 2>/dev/null | grep -q "^$ver "; then
    $sudo pg_createcluster "$ver" main >/dev/null
  fi
  if ! pg_lsclusters -h | grep -q "^$ver *main *[0-9]* *online"; then
    $sudo pg_ctlcluster "$ver" main start
  fi
  for _ in $(seq 1 30); do
    $aspg psql -qAtc "select 1" >/dev/null 2>&1 && break
    sleep 0.5
  done
  local port
  port=$(pg_lsclusters -h | awk -v v="$ver" '$1==v && $2=="main"{print $3}')
  $aspg psql -qc "ALTER USER postgres PASSWORD 'postgres'" >/dev/null
  $aspg psql -qAtc "SELECT 1 FROM pg_database WHERE datname='qafila_test'" | grep -q 1 \
    || $aspg createdb qafila_test
  if ! redis-cli -p 6379 ping >/dev/null 2>&1; then
    redis-server --port 6379 --bind 127.0.0.1 --daemonize yes --save "" --appendonly no >/dev/null
    for _ in $(seq 1 30); do redis-cli -p 6379 ping >/dev/null 2>&1 && break; sleep 0.2; done
  fi
  export QAFILA_CI_DATABASE_URL="postgres://postgres:postgres@127.0.0.1:${port}/qafila_test"
  export QAFILA_CI_REDIS_URL="redis://127.0.0.1:6379/0"
}

# An empty test database and Redis db for a CI run: the suite's data (and the scheduler work it
# leaves due) does not pile up from one run to the next on a machine that keeps its PostgreSQL.
# A test that runs the scheduler's global pass over everything due took minutes on a database
# filled by dozens of earlier runs; a clean machine starts empty anyway.
fresh_test_database() {
  local aspg="runuser -u postgres --"
  [ "$(id -u)" = 0 ] || aspg="sudo -u postgres"
  $aspg dropdb --if-exists --force qafila_test
  $aspg createdb qafila_test
  redis-cli -p 6379 -n 0 flushdb >/dev/null
}
