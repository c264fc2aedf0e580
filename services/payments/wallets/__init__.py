"""Apple Pay and Google Pay wallet tokens, verified and decrypted by Qafila itself: the crypto of
each wallet in its own module (apple_pay.py, google_pay.py, pure functions over bytes), the
keys and the paying in service.py."""
