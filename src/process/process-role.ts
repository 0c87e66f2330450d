/**
 * What a worker the primary forks is: a serving worker, or its instance's background process
 * (background.ts) — said in its environment, read at its start (server.ts).
 */
export const PROCESS_ROLE_ENV = 'SHOP_PROCESS_ROLE';
export const BACKGROUND_ROLE = 'background';
