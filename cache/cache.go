// Package cache keeps the availability of units in Redis for the read path and the sold-out
// gate. PostgreSQL stays the truth: every change reaches Redis through the transactional outbox
// (see Relay), each value carries the version that wrote it so a late write never overwrites a
// newer one, a TTL is the safety net, and a miss or an unreachable Redis sends the reader to the
// database.
package cache

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/go-redis/redis_rate/v10"
	"github.com/redis/go-redis/v9"

	"github.com/bookflow/bookflow/db"
)

// DefaultTTL is how long a unit's value lives in Redis without a change.
const DefaultTTL = 10 * time.Minute

// Units is the availability cache.
type Units struct {
	Redis *redis.Client
	// Prefix starts every key (tests give each system its own).
	Prefix string
	TTL    time.Duration // DefaultTTL when zero
}

// New connects to the Redis at url (redis://host:port/db).
func New(url, prefix string) (*Units, error) {
	opts, err := redis.ParseURL(url)
	if err != nil {
		return nil, fmt.Errorf("REDIS_URL: %w", err)
	}
	// Short timeouts: Redis down must slow a search by milliseconds, not seconds.
	opts.DialTimeout, opts.ReadTimeout, opts.WriteTimeout = timeouts()
	opts.MaxRetries = 0
	return &Units{Redis: redis.NewClient(opts), Prefix: prefix}, nil
}

// NewFailover connects to the primary that Redis Sentinels (host:port each) name for master,
// and follows it when they promote a replica. url, when set, gives the user, password, database
// and TLS (rediss://) of the primary and its replicas.
// During the switch a read fails and the caller falls back to PostgreSQL, as with Redis down.
func NewFailover(sentinels []string, master, url, prefix string) (*Units, error) {
	if len(sentinels) == 0 || master == "" {
		return nil, fmt.Errorf("REDIS_SENTINELS and REDIS_SENTINEL_MASTER go together")
	}
	opts := &redis.FailoverOptions{MasterName: master, SentinelAddrs: sentinels, MaxRetries: 0}
	if url != "" {
		u, err := redis.ParseURL(url)
		if err != nil {
			return nil, fmt.Errorf("REDIS_URL: %w", err)
		}
		opts.Username, opts.Password, opts.DB, opts.TLSConfig = u.Username, u.Password, u.DB, u.TLSConfig
	}
	opts.DialTimeout, opts.ReadTimeout, opts.WriteTimeout = timeouts()
	return &Units{Redis: redis.NewFailoverClient(opts), Prefix: prefix}, nil
}

// timeouts are Redis's dial, read and write timeouts: short, so Redis down slows a search by
// milliseconds, not seconds.
func timeouts() (dial, read, write time.Duration) {
	return 200 * time.Millisecond, 200 * time.Millisecond, 200 * time.Millisecond
}

func (u *Units) ttl() time.Duration {
	if u.TTL > 0 {
		return u.TTL
	}
	return DefaultTTL
}

// key is a unit's key: the resource and the unit's start in Unix seconds.
func (u *Units) key(k db.UnitKey) string {
	return u.Prefix + "bf:u:" + strconv.FormatInt(k.ResourceID, 10) + ":" + strconv.FormatInt(k.Start.Unix(), 10)
}

// A value is "version|left|split".
func encode(st db.CachedUnit) string {
	split := "0"
	if st.Split {
		split = "1"
	}
	return strconv.FormatInt(st.Version, 10) + "|" + strconv.Itoa(st.Left) + "|" + split
}

func decode(k db.UnitKey, v string) (db.CachedUnit, error) {
	parts := strings.Split(v, "|")
	st := db.CachedUnit{UnitKey: k}
	if len(parts) != 3 {
		return st, fmt.Errorf("malformed cached unit %q", v)
	}
	var err1, err2 error
	st.Version, err1 = strconv.ParseInt(parts[0], 10, 64)
	st.Left, err2 = strconv.Atoi(parts[1])
	st.Split = parts[2] == "1"
	return st, errors.Join(err1, err2)
}

// setNewer writes a value only when the stored one is older (or absent), and renews the TTL.
var setNewer = redis.NewScript(`
local cur = redis.call('GET', KEYS[1])
if cur then
  local v = tonumber(string.match(cur, '^(%d+)|'))
  if v and v >= tonumber(ARGV[1]) then return 0 end
end
redis.call('SET', KEYS[1], ARGV[2], 'PX', ARGV[3])
return 1`)

// Apply writes relayed states, each only over an older version.
func (u *Units) Apply(ctx context.Context, states []db.CachedUnit) error {
	pipe := u.Redis.Pipeline()
	for _, st := range states {
		// Eval, not Run: a pipeline learns of a missing cached script only when it is too late.
		setNewer.Eval(ctx, pipe, []string{u.key(st.UnitKey)}, st.Version, encode(st), u.ttl().Milliseconds())
		setNewer.Eval(ctx, pipe, []string{u.priceKey(st.UnitKey)}, st.Version, encodePrices(st), u.ttl().Milliseconds())
	}
	_, err := pipe.Exec(ctx)
	if errors.Is(err, redis.Nil) {
		err = nil
	}
	return err
}

// Fill writes states read from the database on a miss, only where Redis has no value: a value
// read through has version 0, so any relayed change replaces it, and it never replaces one.
func (u *Units) Fill(ctx context.Context, states []db.CachedUnit) error {
	pipe := u.Redis.Pipeline()
	for _, st := range states {
		st.Version = 0
		pipe.SetNX(ctx, u.key(st.UnitKey), encode(st), u.ttl())
		pipe.SetNX(ctx, u.priceKey(st.UnitKey), encodePrices(st), u.ttl())
	}
	_, err := pipe.Exec(ctx)
	return err
}

// Get reads units; found is false when any of them is not cached (the caller asks the database).
func (u *Units) Get(ctx context.Context, keys []db.UnitKey) (states []db.CachedUnit, found bool, err error) {
	if len(keys) == 0 {
		return nil, true, nil
	}
	names := make([]string, len(keys))
	for i, k := range keys {
		names[i] = u.key(k)
	}
	vals, err := u.Redis.MGet(ctx, names...).Result()
	if err != nil {
		return nil, false, err
	}
	states = make([]db.CachedUnit, len(keys))
	for i, v := range vals {
		s, ok := v.(string)
		if !ok {
			return nil, false, nil
		}
		if states[i], err = decode(keys[i], s); err != nil {
			return nil, false, err
		}
	}
	return states, true, nil
}

// racingTTL bounds how long a hold counts as racing if its API process never says it finished.
const racingTTL = 30 * time.Second

// RacingKey names the holds racing for a resource's stay starting at start.
func (u *Units) RacingKey(resourceID int64, start time.Time) string {
	return u.Prefix + "bf:race:" + strconv.FormatInt(resourceID, 10) + ":" + strconv.FormatInt(start.Unix(), 10)
}

// race admits a hold (a member scored by when it started) while fewer than the limit race;
// members older than the TTL are dropped first, so a hold whose process died, or whose finish
// was lost, stops counting after it.
var race = redis.NewScript(`
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', tonumber(ARGV[1]) - tonumber(ARGV[2]))
if redis.call('ZCARD', KEYS[1]) >= tonumber(ARGV[4]) then return 0 end
redis.call('ZADD', KEYS[1], ARGV[1], ARGV[3])
redis.call('PEXPIRE', KEYS[1], ARGV[2])
return 1`)

// Race admits hold under key while fewer than limit holds race there.
func (u *Units) Race(ctx context.Context, key, hold string, limit int) (bool, error) {
	n, err := race.Run(ctx, u.Redis, []string{key}, time.Now().UnixMilli(), racingTTL.Milliseconds(), hold, limit).Int()
	return n == 1, err
}

// Finish stops counting hold as racing.
func (u *Units) Finish(ctx context.Context, key, hold string) {
	u.Redis.ZRem(ctx, key, hold)
}

// relayAliveKey is set by a relay that applies the outbox to Redis, each round: without it the
// cache may be stale with nothing pending (a relay that only drains), and the gate lets
// everything through.
const relayAliveKey = "bf:relay"

// relayAliveTTL is how long a relay's round vouches for the cache.
const relayAliveTTL = 5 * time.Second

// MarkRelayAlive records that a relay applying the outbox ran just now.
func (u *Units) MarkRelayAlive(ctx context.Context) error {
	return u.Redis.Set(ctx, u.Prefix+relayAliveKey, "1", relayAliveTTL).Err()
}

// RelayAlive reports whether a relay applying the outbox ran within relayAliveTTL.
func (u *Units) RelayAlive(ctx context.Context) (bool, error) {
	n, err := u.Redis.Exists(ctx, u.Prefix+relayAliveKey).Result()
	return n == 1, err
}

// RateCount is a request's count against an allowance shared by every API process.
type RateCount struct {
	Allowed    bool
	Remaining  int           // requests still allowed now
	ResetAfter time.Duration // until the allowance is whole again
	RetryAfter time.Duration // when refused: until the next request is allowed
}

// HoldRate counts a hold against one customer's or one client address's (kind) allowance of
// perMinute holds a minute (bursts of the same size), shared by every API process.
func (u *Units) HoldRate(ctx context.Context, kind, id string, perMinute int) (RateCount, error) {
	res, err := redis_rate.NewLimiter(u.Redis).Allow(ctx, u.Prefix+"bf:rate:"+kind+":"+id, redis_rate.PerMinute(perMinute))
	if err != nil {
		return RateCount{Allowed: true}, err
	}
	return RateCount{Allowed: res.Allowed > 0, Remaining: res.Remaining, ResetAfter: res.ResetAfter,
		RetryAfter: res.RetryAfter}, nil
}

// HotelRate counts a hold at a hotel against its rate of perSecond holds a second (bursts of the
// same size), shared by every API process; retryAfter is how long until the next is allowed when
// this one is not.
func (u *Units) HotelRate(ctx context.Context, hotelID string, perSecond int) (allowed bool, retryAfter time.Duration, err error) {
	res, err := redis_rate.NewLimiter(u.Redis).Allow(ctx, u.Prefix+"bf:rate:hotel:"+hotelID, redis_rate.PerSecond(perSecond))
	if err != nil {
		return true, 0, err
	}
	return res.Allowed > 0, res.RetryAfter, nil
}
