"""The documented twins' calling conventions, shared by the server that answers them
(bench/yardstick_documented.py) and the tools that call them (bench/run.py --twins,
bench/pay_profile.py --documented): the key they answer, and each yardstick path's twin."""

KEY = "sk_test_" + "d0cumented" * 3              # the bearer key the twins answer
READ_ID = "pay_documented000000000001"          # the seeded intent the twin read reads
# yardstick path -> (method, the twin's path as called)
ROUTES = {"read": ("GET", f"/read-documented?id={READ_ID}"), "list": ("GET", "/list-documented?limit=20"),
          "create": ("POST", "/create-documented"), "pay": ("POST", "/pay-documented")}
