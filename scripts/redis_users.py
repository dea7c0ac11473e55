#!/usr/bin/env python3
# Prints, in Redis's wire protocol, one HSET per user holding the fields of specd's typical context (the benchmarks'
# 5 counters, 3 events, 2 flags, 2 attributes, a segment and 2 donation summaries), for `redis-cli --pipe`.
#   python3 scripts/redis_users.py USERS | redis-cli -p PORT --pipe
import sys
users = int(sys.argv[1])
out = sys.stdout
def command(*parts):
    out.write("*%d\r\n" % len(parts))
    for part in parts:
        data = str(part)
        out.write("$%d\r\n%s\r\n" % (len(data.encode()), data))
base = 1773144000000
for i in range(users):
    t = base + i
    command("HSET", "user:user-%d" % i,
            "launchedAt", t, "c:screen_views", i % 50, "c:promo_banner_count", 1, "c:rating_prompt_count", 0,
            "c:editor_opened", 3, "c:purchases", i % 7,
            "e:last_promo_banner", t, "e:installed", t - 86400000, "e:last_tip_shown", t - 3600000,
            "f:promo", 1, "f:tips_disabled", 0,
            "a:subscription_status", '"premium"', "a:country", '"FR"', "s:vip", 1,
            "d:appStarted", '{"count":3,"first":[%d,"1.0"],"last":[%d,"1.2"],"recent":[%d,%d,%d]}' % (t - 172800000, t, t - 172800000, t - 86400000, t),
            "d:paywallViewed", '{"count":1,"first":[%d,"1.2"],"last":[%d,"1.2"],"recent":[%d]}' % (t, t, t))
