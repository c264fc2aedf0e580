"""Money: the currency table, the ledger, balance and settlements, analytics, disputes, market calendars."""
