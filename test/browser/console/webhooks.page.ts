/**
 * Page object of the Webhooks screen (console.md §3): the create form, each webhook's card (an
 * article named by its URL) with its actions, the dialogs, and one webhook's deliveries table —
 * located by role and label as a person or a screen reader finds them.
 */
import type { Locator, Page } from 'playwright-core';
import { expect } from 'vitest';

/** One attempt as the deliveries table shows it. */
export interface DeliveryRowText {
  event: string;
  attempt: string;
  status: string;
  response: string;
  duration: string;
  nextAttempt: string;
}

export class WebhooksPage {
  readonly heading: Locator;
  readonly createForm: Locator;
  readonly url: Locator;
  readonly everyEvent: Locator;
  readonly description: Locator;
  readonly create: Locator;
  readonly status: Locator;
  readonly deliveries: Locator;
  readonly deliveriesTable: Locator;
  readonly statusFilter: Locator;
  readonly events: Locator;
  readonly resultLine: Locator;

  constructor(readonly page: Page) {
    this.heading = page.getByRole('heading', { level: 1, name: 'Webhooks' });
    this.createForm = page.getByRole('form', { name: 'Add a webhook' });
    this.url = this.createForm.getByLabel('Endpoint URL');
    this.everyEvent = this.createForm.getByLabel(/^Every event/);
    this.description = this.createForm.getByLabel('Description (optional)');
    this.create = this.createForm.getByRole('button', { name: 'Create the webhook' });
    this.status = page.locator('p[role="status"].status-line').first();
    this.deliveries = page.getByRole('region', { name: /^Deliveries to / }).first();
    this.deliveriesTable = page.locator('table.deliveries-table');
    this.statusFilter = page.getByLabel('Delivery status');
    this.events = page.getByRole('region', { name: 'Recent events' }).first();
    this.resultLine = this.deliveries.locator('.result-line');
  }

  async expectLoaded(): Promise<void> {
    await this.heading.waitFor();
    await this.createForm.waitFor();
    await this.page.locator('.webhook-list, .notice').first().waitFor();
  }

  /** A webhook's card: an article named by its URL. */
  card(url: string): Locator {
    return this.page.getByRole('article', { name: url, exact: true });
  }

  /** A webhook card's facts (Events, Description, State, Created) as name → text. */
  facts(url: string): Promise<Record<string, string>> {
    return this.card(url)
      .locator('dl')
      .evaluate((dl) =>
        Object.fromEntries(
          [...dl.querySelectorAll('dt')].map((dt) => [
            (dt as HTMLElement).innerText.trim(),
            (dt.nextElementSibling as HTMLElement).innerText.trim(),
          ]),
        ),
      );
  }

  /** A button or link of a webhook's card, by its visible name ("Edit", "Deliveries" …). */
  action(url: string, name: string): Locator {
    return this.card(url).getByRole(name === 'Deliveries' ? 'link' : 'button', { name: new RegExp(`^${name}\\b`) });
  }

  /** The open dialog (native <dialog> with showModal: role dialog). */
  dialog(name: string | RegExp): Locator {
    return this.page.getByRole('dialog', { name });
  }

  /** The deliveries table's rows, newest first. */
  async deliveryRows(): Promise<DeliveryRowText[]> {
    if ((await this.deliveriesTable.count()) === 0) return [];
    return this.deliveriesTable.locator('tbody tr').evaluateAll((rows) =>
      rows.map((row) => {
        const cells = [...row.querySelectorAll('th, td')].map((cell) => (cell as HTMLElement).innerText.trim());
        return {
          event: cells[0] ?? '',
          attempt: cells[1] ?? '',
          status: cells[3] ?? '',
          response: cells[4] ?? '',
          duration: cells[5] ?? '',
          nextAttempt: cells[6] ?? '',
        };
      }),
    );
  }

  /** Waits until the table shows an attempt matching `match`, and returns it. */
  async waitForDelivery(match: Partial<DeliveryRowText>, timeout = 15_000): Promise<DeliveryRowText> {
    let found: DeliveryRowText | undefined;
    let rows: DeliveryRowText[] = [];
    await expect
      .poll(
        async () => {
          rows = await this.deliveryRows();
          found = rows.find((row) =>
            Object.entries(match).every(([key, value]) => row[key as keyof DeliveryRowText] === value),
          );
          return found !== undefined;
        },
        { timeout, interval: 200 },
      )
      .toBe(true)
      .catch((error: Error) => {
        throw new Error(`No attempt ${JSON.stringify(match)} among ${JSON.stringify(rows)}`, { cause: error });
      });
    return found!;
  }

  /** The newest events' table: event id, type and who made it, newest first. */
  async eventRows(): Promise<Array<{ event: string; type: string; by: string }>> {
    const table = this.events.locator('table.events-table');
    if ((await table.count()) === 0) return [];
    return table.locator('tbody tr').evaluateAll((rows) =>
      rows.map((row) => {
        const cells = [...row.querySelectorAll('th, td')].map((cell) => (cell as HTMLElement).innerText.trim());
        return { event: cells[0] ?? '', type: cells[1] ?? '', by: cells[3] ?? '' };
      }),
    );
  }

  /** A row of the deliveries table by its event and attempt. */
  deliveryRow(eventId: string, attempt: number): Locator {
    return this.deliveriesTable
      .locator('tbody tr')
      .filter({ has: this.page.getByRole('rowheader', { name: eventId }) })
      .filter({ has: this.page.locator(`td:nth-of-type(1)`).getByText(String(attempt), { exact: true }) });
  }
}
