/**
 * Money as the API takes it (contract §1): yuan, at most two fractional digits, 0..99999999.99, sent
 * as a decimal string so nothing passes through a float.
 */
const MONEY = /^\d{1,8}(\.\d{1,2})?$/;

export const isMoney = (text: string): boolean => MONEY.test(text);
