/**
 * An item's SKUs (contract §15): spec names × values generate the rows (颜色: 黑, 白 × 尺码: 40, 41, 42
 * → 6), price and stock are filled for every selected row at once, and each row's cells are edited
 * on their own. Every cell has a label naming its row, so a screen reader and a test find it.
 */
import { Plural, Trans, useLingui } from '@lingui/react/macro';
import { useId, useState } from 'react';
import { generateSkus, isStock, MAX_SKUS, newKey, type SkuDraft, type SpecAxis } from './item-draft.ts';
import { isMoney } from './money.ts';

interface SkuTableProps {
  axes: SpecAxis[];
  skus: SkuDraft[];
  itemPrice: string;
  onAxesChange: (axes: SpecAxis[]) => void;
  onSkusChange: (skus: SkuDraft[]) => void;
  /** Problems by the service's field names (`skus[2].price`). */
  errors: Record<string, string>;
}

export function SkuTable({ axes, skus, itemPrice, onAxesChange, onSkusChange, errors }: SkuTableProps) {
  const { t } = useLingui();
  const [selected, setSelected] = useState<ReadonlySet<string>>(new Set());
  const [fillPrice, setFillPrice] = useState('');
  const [fillStock, setFillStock] = useState('');
  const [fillError, setFillError] = useState('');
  const [message, setMessage] = useState('');
  const tableId = useId();

  // The spec columns: the axes' names, then any other name a row has (so nothing stored is hidden).
  const columns = [
    ...new Set([...axes.map((a) => a.name.trim()).filter(Boolean), ...skus.flatMap((sku) => Object.keys(sku.specs))]),
  ];

  const generate = () => {
    const { rows, count } = generateSkus(axes, skus, itemPrice);
    if (count > MAX_SKUS) {
      setMessage(t`These values make ${count} SKUs; an item has at most ${MAX_SKUS}.`);
      return;
    }
    if (count === 0) {
      setMessage(t`Give at least one spec a name and values first.`);
      return;
    }
    onSkusChange(rows);
    setSelected(new Set());
    setMessage(t`Generated ${count} SKUs.`);
  };

  const fill = () => {
    const price = fillPrice.trim();
    const stock = fillStock.trim();
    if (selected.size === 0) return setFillError(t`Select the SKUs to fill first.`);
    if (!price && !stock) return setFillError(t`Enter a price, a stock or both.`);
    if (price && !isMoney(price)) return setFillError(t`Enter an amount in yuan, such as 19.90.`);
    if (stock && !isStock(stock)) return setFillError(t`Enter a whole number, 0 or more.`);
    setFillError('');
    onSkusChange(
      skus.map((sku) =>
        selected.has(sku.key) ? { ...sku, ...(price ? { price } : {}), ...(stock ? { stock } : {}) } : sku,
      ),
    );
    const n = selected.size;
    setMessage(t`Filled ${n} SKUs.`);
  };

  const changeSku = (key: string, change: Partial<SkuDraft>) =>
    onSkusChange(skus.map((sku) => (sku.key === key ? { ...sku, ...change } : sku)));
  const changeAxis = (key: string, change: Partial<SpecAxis>) =>
    onAxesChange(axes.map((axis) => (axis.key === key ? { ...axis, ...change } : axis)));
  const allSelected = skus.length > 0 && skus.every((sku) => selected.has(sku.key));

  return (
    <fieldset className="sku-editor">
      <legend>
        <Trans>SKUs</Trans>
      </legend>

      <div className="spec-axes">
        <p className="muted hint" id={`${tableId}-axes-help`}>
          <Trans>
            Name each spec and list its values, separated by commas. Generate makes one SKU for each combination and
            keeps the price and stock of SKUs that already have it.
          </Trans>
        </p>
        {axes.map((axis, index) => {
          const n = index + 1;
          return (
            <div key={axis.key} className="spec-axis">
              <div className="field">
                <label htmlFor={`${axis.key}-name`}>{t`Spec ${n} name`}</label>
                <input
                  id={`${axis.key}-name`}
                  value={axis.name}
                  maxLength={64}
                  onChange={(e) => changeAxis(axis.key, { name: e.target.value })}
                />
              </div>
              <div className="field">
                <label htmlFor={`${axis.key}-values`}>{t`Spec ${n} values`}</label>
                <input
                  id={`${axis.key}-values`}
                  value={axis.values}
                  aria-describedby={`${tableId}-axes-help`}
                  onChange={(e) => changeAxis(axis.key, { values: e.target.value })}
                />
              </div>
              <button
                type="button"
                className="button"
                onClick={() => onAxesChange(axes.filter((other) => other.key !== axis.key))}
              >
                <Trans>Remove spec {n}</Trans>
              </button>
            </div>
          );
        })}
        <div className="button-row">
          <button
            type="button"
            className="button"
            onClick={() => onAxesChange([...axes, { key: newKey(), name: '', values: '' }])}
          >
            <Trans>Add spec</Trans>
          </button>
          <button type="button" className="button primary" onClick={generate}>
            <Trans>Generate SKUs</Trans>
          </button>
        </div>
      </div>

      {skus.length > 0 && (
        <>
          <div className="sku-fill">
            <div className="field">
              <label htmlFor={`${tableId}-fill-price`}>{t`Price for the selected SKUs (yuan)`}</label>
              <input
                id={`${tableId}-fill-price`}
                inputMode="decimal"
                value={fillPrice}
                onChange={(e) => setFillPrice(e.target.value)}
              />
            </div>
            <div className="field">
              <label htmlFor={`${tableId}-fill-stock`}>{t`Stock for the selected SKUs`}</label>
              <input
                id={`${tableId}-fill-stock`}
                inputMode="numeric"
                value={fillStock}
                onChange={(e) => setFillStock(e.target.value)}
              />
            </div>
            <button type="button" className="button" onClick={fill} aria-describedby={`${tableId}-fill-error`}>
              <Trans>Fill selected SKUs</Trans>
            </button>
            <p id={`${tableId}-fill-error`} className="field-error">
              {fillError}
            </p>
          </div>
          <p className="muted">
            <Plural value={selected.size} one="# SKU selected" other="# SKUs selected" />
          </p>
          {/* biome-ignore lint/a11y/noNoninteractiveTabindex: a scrolling region must be reachable by keyboard (WCAG 2.1.1) */}
          <section className="table-scroll" aria-labelledby={`${tableId}-caption`} tabIndex={0}>
            <table className="sku-table">
              <caption id={`${tableId}-caption`} className="visually-hidden">
                <Trans>SKUs of this item</Trans>
              </caption>
              <thead>
                <tr>
                  <th scope="col" className="select-cell">
                    <input
                      type="checkbox"
                      aria-label={t`Select all SKUs`}
                      checked={allSelected}
                      onChange={(e) => setSelected(e.target.checked ? new Set(skus.map((sku) => sku.key)) : new Set())}
                    />
                  </th>
                  {columns.map((name) => (
                    <th scope="col" key={name}>
                      {name}
                    </th>
                  ))}
                  <th scope="col">
                    <Trans>SKU code</Trans>
                  </th>
                  <th scope="col">
                    <Trans>Price (yuan)</Trans>
                  </th>
                  <th scope="col">
                    <Trans>Stock</Trans>
                  </th>
                  <th scope="col">
                    <span className="visually-hidden">
                      <Trans>Actions</Trans>
                    </span>
                  </th>
                </tr>
              </thead>
              <tbody>
                {skus.map((sku, index) => {
                  const n = index + 1;
                  const field = (name: string) => errors[`skus[${index}].${name}`];
                  return (
                    <tr key={sku.key}>
                      <td className="select-cell">
                        <input
                          type="checkbox"
                          aria-label={t`Select SKU ${n}`}
                          checked={selected.has(sku.key)}
                          onChange={(e) =>
                            setSelected((prev) => {
                              const next = new Set(prev);
                              if (e.target.checked) next.add(sku.key);
                              else next.delete(sku.key);
                              return next;
                            })
                          }
                        />
                      </td>
                      {columns.map((name) => (
                        <td key={name}>
                          <CellInput
                            label={t`${name} of SKU ${n}`}
                            value={sku.specs[name] ?? ''}
                            maxLength={200}
                            onChange={(value) => changeSku(sku.key, { specs: { ...sku.specs, [name]: value } })}
                          />
                        </td>
                      ))}
                      <td>
                        <CellInput
                          label={t`SKU code of SKU ${n}`}
                          value={sku.skuCode}
                          maxLength={64}
                          onChange={(value) => changeSku(sku.key, { skuCode: value })}
                          error={field('skuCode')}
                        />
                        {field('specs') && <p className="field-error">{field('specs')}</p>}
                      </td>
                      <td>
                        <CellInput
                          label={t`Price of SKU ${n}`}
                          inputMode="decimal"
                          value={sku.price}
                          onChange={(value) => changeSku(sku.key, { price: value })}
                          error={field('price')}
                        />
                      </td>
                      <td>
                        <CellInput
                          label={t`Stock of SKU ${n}`}
                          inputMode="numeric"
                          value={sku.stock}
                          onChange={(value) => changeSku(sku.key, { stock: value })}
                          error={field('stock')}
                        />
                      </td>
                      <td>
                        <button
                          type="button"
                          className="button"
                          onClick={() => onSkusChange(skus.filter((other) => other.key !== sku.key))}
                        >
                          <Trans>Remove SKU {n}</Trans>
                        </button>
                      </td>
                    </tr>
                  );
                })}
              </tbody>
            </table>
          </section>
        </>
      )}
      {errors.skus && <p className="field-error">{errors.skus}</p>}
      <div className="button-row">
        <button
          type="button"
          className="button"
          disabled={skus.length >= MAX_SKUS}
          onClick={() =>
            onSkusChange([
              ...skus,
              { key: newKey(), skuCode: '', specs: {}, price: isMoney(itemPrice) ? itemPrice : '', stock: '0' },
            ])
          }
        >
          <Trans>Add SKU</Trans>
        </button>
      </div>
      <p role="status" className="sku-message">
        {message}
      </p>
    </fieldset>
  );
}

/** A table cell's input: its label hidden (the column and row say it visually), its error under it. */
function CellInput({
  label,
  value,
  onChange,
  error,
  inputMode,
  maxLength,
}: {
  label: string;
  value: string;
  onChange: (value: string) => void;
  error?: string;
  inputMode?: 'decimal' | 'numeric';
  maxLength?: number;
}) {
  const id = useId();
  return (
    <>
      <label htmlFor={id} className="visually-hidden">
        {label}
      </label>
      <input
        id={id}
        className="cell-input"
        value={value}
        inputMode={inputMode}
        maxLength={maxLength}
        aria-invalid={error ? true : undefined}
        aria-describedby={error ? `${id}-error` : undefined}
        onChange={(e) => onChange(e.target.value)}
      />
      {error && (
        <p id={`${id}-error`} className="field-error">
          {error}
        </p>
      )}
    </>
  );
}
