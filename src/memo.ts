/**
 * One value per key, made on the key's first use and kept: for the few, fixed keys a hot path looks
 * things up by (a metric's series per pool or route, a statement's text per size, a REST name per
 * GraphQL name), so the path then costs one map lookup on a value it already holds. Unbounded: never
 * for keys a client chooses.
 */
export function memoBy<K, V>(make: (key: K) => V): (key: K) => V {
  const made = new Map<K, V>();
  return (key) => {
    let value = made.get(key);
    if (value === undefined) made.set(key, (value = make(key)));
    return value;
  };
}
