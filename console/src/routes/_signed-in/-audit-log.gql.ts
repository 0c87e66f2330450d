/** The audit log's document: one filtered page, newest first, its total from the same answer. */
import { graphql, type ResultOf, type VariablesOf } from '../../gql/graphql.ts';

export const AuditLog = graphql(`
  query AuditLog(
    $actorType: String
    $actorId: Int
    $action: String
    $targetType: String
    $targetId: Int
    $from: DateTime
    $to: DateTime
    $page: Int
    $limit: Int
  ) {
    auditLog(
      actorType: $actorType
      actorId: $actorId
      action: $action
      targetType: $targetType
      targetId: $targetId
      from: $from
      to: $to
      page: $page
      limit: $limit
    ) {
      entries {
        id
        at
        actor {
          type
          id
          name
        }
        action
        target {
          type
          id
        }
        changes
        requestId
        ip
      }
      page
      limit
      total
      totalPages
    }
  }
`);

export type AuditLogVariables = VariablesOf<typeof AuditLog>;
export type AuditEntry = ResultOf<typeof AuditLog>['auditLog']['entries'][number];
