/** The webhooks screen's documents (contract §14.2): webhooks, their attempts, and the event log (§14.1). */
import { graphql, type ResultOf, type VariablesOf } from '../../gql/graphql.ts';

export const Webhooks = graphql(`
  query Webhooks {
    webhooks {
      id
      url
      events
      description
      disabled
      disabledReason
      createdAt
    }
  }
`);

export type WebhookRow = ResultOf<typeof Webhooks>['webhooks'][number];

export const CreateWebhook = graphql(`
  mutation CreateWebhook($input: CreateWebhookInput!) {
    createWebhook(input: $input) {
      webhook {
        id
        url
      }
      secret
    }
  }
`);

export const UpdateWebhook = graphql(`
  mutation UpdateWebhook($id: Int!, $input: UpdateWebhookInput!) {
    updateWebhook(id: $id, input: $input) {
      id
      url
      events
      description
      disabled
      disabledReason
    }
  }
`);

export type UpdateWebhookInput = VariablesOf<typeof UpdateWebhook>['input'];

export const DeleteWebhook = graphql(`
  mutation DeleteWebhook($id: Int!) {
    deleteWebhook(id: $id)
  }
`);

export const RotateWebhookSecret = graphql(`
  mutation RotateWebhookSecret($id: Int!) {
    rotateWebhookSecret(id: $id)
  }
`);

export const SendTestEvent = graphql(`
  mutation SendTestEvent($webhookId: Int!) {
    sendTestEvent(webhookId: $webhookId)
  }
`);

export const WebhookDeliveries = graphql(`
  query WebhookDeliveries($webhookId: Int!, $status: WebhookDeliveryStatus, $page: Int, $limit: Int) {
    webhookDeliveries(webhookId: $webhookId, status: $status, page: $page, limit: $limit) {
      deliveries {
        id
        eventId
        attempt
        at
        status
        responseStatus
        responseBody
        durationMs
        nextAttemptAt
      }
      page
      total
      totalPages
    }
  }
`);

export type DeliveriesVariables = VariablesOf<typeof WebhookDeliveries>;
export type Delivery = ResultOf<typeof WebhookDeliveries>['webhookDeliveries']['deliveries'][number];
export type DeliveryStatus = Delivery['status'];

export const RedeliverEvent = graphql(`
  mutation RedeliverEvent($webhookId: Int!, $eventId: String!) {
    redeliverEvent(webhookId: $webhookId, eventId: $eventId)
  }
`);

export const Events = graphql(`
  query Events($after: Int, $limit: Int, $types: [String!]) {
    events(after: $after, limit: $limit, types: $types) {
      events {
        id
        seq
        type
        at
        actor {
          type
          name
        }
      }
      nextAfter
    }
  }
`);

export type EventRow = ResultOf<typeof Events>['events']['events'][number];

/** Query keys (console.md §2: [entity, 'list', …]). */
export const WEBHOOKS_KEY = ['webhook', 'list'] as const;
export const DELIVERIES_KEY = ['webhook-delivery', 'list'] as const;
export const EVENTS_KEY = ['event', 'list'] as const;
