/* Qafila browser script (v1): confirm a payment intent from the merchant's own page.
 *
 *   var qafila = Qafila("pk_test_...");
 *   qafila.confirmPayment(clientSecret, {card: {number, exp_month, exp_year, cvc}})
 *     .then(function (result) { result.status  // "succeeded", "failed", "processing", ... });
 *
 * Takes a publishable key only, with the intent's client_secret; card details go to
 * /v1/payment_methods (tokenized: brand, last4, expiry, fingerprint are kept), then the intent is
 * confirmed. A 3-D Secure step opens the bank's page in a frame over the page and resolves when
 * it is done. No dependency; served by the service itself.
 *
 * Local methods (no card): confirmPayment(clientSecret, {phone?, return_url?, redirect?})
 *   redirect (KNET, BenefitPay, NAPS, OmanNet, eg_wallet with phone): the browser goes to the scheme's
 *     page (unless redirect: false) and
 *     comes back to return_url (default: the hosted result page); result.nextAction has the url.
 *   display_reference (Fawry): result.nextAction = {type, reference, expires_at}.
 *   otp (STC Pay): result.nextAction = {type, phone_hint}; then confirmOtp(clientSecret, code)
 *     resolves with the outcome (a wrong code: status "requires_action", error.attempts_left).
 *
 * Buy now, pay later (bnpl_split4, bnpl_split3):
 *   bnplEligibility({method, amount, currency, phone, email?}) resolves with {status: "eligible", schedule:
 *     [{due_date, amount}]} or {status: "not_eligible", reason} (amount_too_low, amount_too_high, buyer_rejected).
 *   confirmPayment(clientSecret, {return_url?}) sends the buyer to the provider's page, which comes back to
 *     return_url with payment_intent and status (requires_capture, failed or canceled); a buyer the provider
 *     refuses resolves at once with error.code "bnpl_not_eligible" (error.decline_code: the reason). */
(function (global) {
  "use strict";
  var API = "__QAFILA_API_URL__";
  var PAY = "__QAFILA_PAY_URL__";

  function QafilaError(message, status, error) {
    var e = new Error(message);
    e.name = "QafilaError"; e.status = status; e.error = error || null;
    e.code = error && error.code;
    return e;
  }

  function Qafila(publishableKey, options) {
    if (!(this instanceof Qafila)) { return new Qafila(publishableKey, options); }
    if (typeof publishableKey !== "string" || !/^pk_(test|live)_/.test(publishableKey)) {
      throw QafilaError("Qafila: a publishable key (pk_test_... or pk_live_...) is required; never use a secret key in a browser", 0);
    }
    this.key = publishableKey;
    this.api = (options && options.apiUrl) || API;
    this.pollMs = (options && options.pollMs) || 700;
  }

  Qafila.prototype._request = function (method, path, body) {
    return fetch(this.api + path, {
      method: method,
      headers: {"Authorization": "Bearer " + this.key, "Content-Type": "application/json"},
      body: body ? JSON.stringify(body) : undefined
    }).then(function (r) {
      return r.json().then(function (j) {
        if (!r.ok) {
          var err = j && j.error;
          throw QafilaError((err && err.message) || ("HTTP " + r.status), r.status, err);
        }
        return j;
      });
    });
  };

  Qafila.prototype.retrievePaymentIntent = function (clientSecret) {
    var id = intentId(clientSecret);
    return this._request("GET", "/v1/payments/" + id + "?client_secret=" + encodeURIComponent(clientSecret));
  };

  function intentId(clientSecret) {
    if (typeof clientSecret !== "string" || clientSecret.indexOf("_secret_") < 0) {
      throw QafilaError("Qafila: clientSecret must be the intent's client_secret", 0);
    }
    return clientSecret.split("_secret_")[0];
  }

  function localResult(pi, error) {
    return {status: pi ? pi.status : "failed", paymentIntent: pi || null, error: error || null,
            nextAction: (pi && pi.next_action) || null};
  }

  Qafila.prototype._confirmLocal = function (id, clientSecret, data) {
    var self = this;
    var body = {client_secret: clientSecret, return_url: data.return_url || (PAY + "/" + id + "/result")};
    if (data.phone) { body.phone = String(data.phone); }
    return self._request("POST", "/v1/payments/" + id + "/confirm", body).then(function (pi) {
      var na = pi.next_action;
      if (pi.status === "requires_action" && na && na.type === "redirect" && data.redirect !== false) {
        global.location.assign(na.url);
      }
      return localResult(pi, pi.status === "failed" ? {code: pi.failure_code, message: pi.failure_message} : null);
    }, function (err) {
      if (err.status === 402 && err.code === "bnpl_not_eligible") {     // refused before any redirect
        return self.retrievePaymentIntent(clientSecret).then(function (pi) { return localResult(pi, err.error); });
      }
      throw err;
    });
  };

  Qafila.prototype.bnplEligibility = function (params) {
    var p = params || {};
    var q = ["method", "amount", "currency", "phone", "email"].filter(function (k) {
      return p[k] !== undefined && p[k] !== null && p[k] !== "";
    }).map(function (k) { return k + "=" + encodeURIComponent(String(p[k])); }).join("&");
    return this._request("GET", "/v1/bnpl/eligibility?" + q);
  };

  Qafila.prototype.confirmOtp = function (clientSecret, code) {
    var self = this;
    var id;
    try { id = intentId(clientSecret); } catch (e) { return Promise.reject(e); }
    return self._request("POST", "/v1/payments/" + id + "/confirm", {client_secret: clientSecret, otp: String(code)})
      .then(function (pi) { return localResult(pi, null); }, function (err) {
        if (err.status === 402) {         // a wrong code (attempts_left), or the last one: the intent failed
          return self.retrievePaymentIntent(clientSecret).then(function (pi) { return localResult(pi, err.error); });
        }
        throw err;
      });
  };

  Qafila.prototype.confirmPayment = function (clientSecret, data) {
    var self = this;
    var id;
    try { id = intentId(clientSecret); } catch (e) { return Promise.reject(e); }
    if (!data || !data.card) { return self._confirmLocal(id, clientSecret, data || {}); }
    var card = (data && data.card) || {};
    var result = function (pi, error) {
      return {status: pi ? pi.status : "failed", paymentIntent: pi || null, error: error || null};
    };
    return self._request("POST", "/v1/payment_methods", {
      type: "card",
      card: {number: String(card.number || "").replace(/[\s-]/g, ""), exp_month: Number(card.exp_month),
             exp_year: Number(card.exp_year), cvc: card.cvc ? String(card.cvc) : undefined}
    }).then(function (pm) {
      return self._request("POST", "/v1/payments/" + id + "/confirm", {
        payment_method_id: pm.id, client_secret: clientSecret,
        return_url: PAY + "/" + id + "/result?embed=1"
      });
    }).then(function (pi) {
      if (pi.status === "requires_action") { return self._challenge(pi, clientSecret); }
      return pi;
    }).then(function (pi) {
      return result(pi, pi.status === "failed" ? {code: pi.failure_code, message: pi.failure_message} : null);
    }, function (err) {
      if (err.status === 402) {           // declined: the intent is failed and may be confirmed again
        return self.retrievePaymentIntent(clientSecret).then(function (pi) { return result(pi, err.error); });
      }
      throw err;
    });
  };

  Qafila.prototype._challenge = function (pi, clientSecret) {
    var self = this;
    var url = pi.next_action && pi.next_action.redirect_to_url && pi.next_action.redirect_to_url.url;
    var token = url ? new URL(url).searchParams.get("token") : null;
    var overlay = document.createElement("div");
    overlay.setAttribute("data-qafila-challenge", "");
    overlay.style.cssText = "position:fixed;inset:0;background:rgba(0,0,0,.45);display:flex;align-items:center;" +
                            "justify-content:center;z-index:2147483647";
    var frame = document.createElement("iframe");
    frame.title = "3-D Secure";
    frame.style.cssText = "width:420px;max-width:95vw;height:480px;border:0;border-radius:12px;background:#fff";
    frame.src = PAY + "/" + pi.id + "/authenticate?embed=1&token=" + encodeURIComponent(token || "");
    overlay.appendChild(frame);
    document.body.appendChild(overlay);
    return new Promise(function (resolve, reject) {
      var started = Date.now();
      function poll() {
        self.retrievePaymentIntent(clientSecret).then(function (fresh) {
          if (fresh.status !== "requires_action" || Date.now() - started > 15 * 60 * 1000) {
            overlay.parentNode && overlay.parentNode.removeChild(overlay);
            resolve(fresh);
          } else {
            setTimeout(poll, self.pollMs);
          }
        }, function (err) { overlay.parentNode && overlay.parentNode.removeChild(overlay); reject(err); });
      }
      setTimeout(poll, self.pollMs);
    });
  };

  global.Qafila = Qafila;
})(window);
