import { Type } from "@sinclair/typebox";
import { A, sdkRead } from "./sdk-operation.ts";

// SDK modules load on first use: a command that never touches a service never pays for it.
const sdk_application_signals = () => import("@aws-sdk/client-application-signals");
const sdk_cloudtrail = () => import("@aws-sdk/client-cloudtrail");
const sdk_cloudwatch = () => import("@aws-sdk/client-cloudwatch");
const sdk_cloudwatch_logs = () => import("@aws-sdk/client-cloudwatch-logs");
const sdk_iam = () => import("@aws-sdk/client-iam");
const sdk_quicksight = () => import("@aws-sdk/client-quicksight");

// Statements Observabilidade, AuditoriaEConsulta (the non-query part), SegurancaIamSomenteLeitura
// and BiQuickSightSomenteLeitura. BI embed operations (GenerateEmbedUrlForAnonymousUser,
// GenerateEmbedUrlForRegisteredUser, GenerateEmbedUrlForRegisteredUserWithIdentity,
// GetDashboardEmbedUrl) are deliberately absent: enforcement refuses them.

const account = { AwsAccountId: Type.String({ pattern: "^\\d{12}$" }) };
const times = <T extends { StartTime: string; EndTime: string }>(a: T) => ({ ...a, StartTime: new Date(a.StartTime), EndTime: new Date(a.EndTime) });

export const observabilityAndSecurityOperations = [
  sdkRead({ name: "aws.cloudwatch.getMetricData", action: "cloudwatch:GetMetricData", summary: "CloudWatch metric queries", sdk: sdk_cloudwatch, client: "CloudWatchClient", command: "GetMetricDataCommand", args: { MetricDataQueries: Type.Array(Type.Object({ Id: A.str, Expression: A.optStr, MetricStat: A.json, Period: A.optInt, Label: A.optStr, ReturnData: A.optBool, AccountId: A.optStr }, { additionalProperties: false }), { minItems: 1, maxItems: 500 }), StartTime: A.date, EndTime: A.date, NextToken: A.optStr, ScanBy: Type.Optional(Type.Union([Type.Literal("TimestampDescending"), Type.Literal("TimestampAscending")])), MaxDatapoints: A.optInt }, example: { MetricDataQueries: [{ Id: "cpu", Expression: "SELECT AVG(CPUUtilization) FROM SCHEMA(\"AWS/EC2\", InstanceId)", Period: 300 }], StartTime: "2026-11-21T15:00:00Z", EndTime: "2026-11-21T16:00:00Z" }, input: times }),
  sdkRead({ name: "aws.cloudwatch.describeAlarms", action: "cloudwatch:DescribeAlarms", summary: "CloudWatch alarms and their state", sdk: sdk_cloudwatch, client: "CloudWatchClient", command: "DescribeAlarmsCommand", args: { AlarmNames: A.optStrs, AlarmNamePrefix: A.optStr, StateValue: Type.Optional(Type.Union([Type.Literal("OK"), Type.Literal("ALARM"), Type.Literal("INSUFFICIENT_DATA")])), MaxRecords: A.optInt, NextToken: A.optStr }, example: {} }),
  sdkRead({ name: "aws.logs.describeLogGroups", action: "logs:DescribeLogGroups", summary: "CloudWatch log groups", sdk: sdk_cloudwatch_logs, client: "CloudWatchLogsClient", command: "DescribeLogGroupsCommand", args: { logGroupNamePrefix: A.optStr, nextToken: A.optStr, limit: A.optInt }, example: {} }),
  sdkRead({ name: "aws.logs.filterLogEvents", action: "logs:FilterLogEvents", summary: "log events matching a filter pattern", sdk: sdk_cloudwatch_logs, client: "CloudWatchLogsClient", command: "FilterLogEventsCommand", args: { logGroupName: A.str, filterPattern: A.optStr, startTime: A.optEpochMs, endTime: A.optEpochMs, limit: A.optInt, nextToken: A.optStr }, example: { logGroupName: "/aws/lambda/api-handler", filterPattern: "ERROR" } }),
  sdkRead({ name: "aws.applicationSignals.listServices", action: "application-signals:ListServices", summary: "services discovered by Application Signals", sdk: sdk_application_signals, client: "ApplicationSignalsClient", command: "ListServicesCommand", args: { StartTime: A.date, EndTime: A.date, MaxResults: A.optInt, NextToken: A.optStr }, example: { StartTime: "2026-11-21T15:00:00Z", EndTime: "2026-11-21T16:00:00Z" }, input: times }),
  sdkRead({ name: "aws.applicationSignals.listServiceLevelObjectives", action: "application-signals:ListServiceLevelObjectives", summary: "SLOs", sdk: sdk_application_signals, client: "ApplicationSignalsClient", command: "ListServiceLevelObjectivesCommand", args: { MaxResults: A.optInt, NextToken: A.optStr }, example: {} }),
  sdkRead({ name: "aws.applicationSignals.batchGetServiceLevelObjectiveBudgetReport", action: "application-signals:BatchGetServiceLevelObjectiveBudgetReport", summary: "error budget of SLOs at a time", sdk: sdk_application_signals, client: "ApplicationSignalsClient", command: "BatchGetServiceLevelObjectiveBudgetReportCommand", args: { Timestamp: A.date, SloIds: A.strs }, example: { Timestamp: "2026-11-21T16:00:00Z", SloIds: ["api-availability"] }, input: (a) => ({ ...a, Timestamp: new Date(a.Timestamp) }) }),

  sdkRead({ name: "aws.cloudtrail.lookupEvents", action: "cloudtrail:LookupEvents", summary: "management events of the last 90 days", sdk: sdk_cloudtrail, client: "CloudTrailClient", command: "LookupEventsCommand", args: { LookupAttributes: Type.Optional(Type.Array(Type.Object({ AttributeKey: A.str, AttributeValue: A.str }, { additionalProperties: false }))), StartTime: Type.Optional(A.date), EndTime: Type.Optional(A.date), MaxResults: A.optInt, NextToken: A.optStr }, example: { LookupAttributes: [{ AttributeKey: "EventName", AttributeValue: "UpdateService" }] }, input: (a) => ({ ...a, StartTime: a.StartTime ? new Date(a.StartTime) : undefined, EndTime: a.EndTime ? new Date(a.EndTime) : undefined }) }),
  sdkRead({ name: "aws.cloudtrail.listEventDataStores", action: "cloudtrail:ListEventDataStores", summary: "CloudTrail Lake event data stores", sdk: sdk_cloudtrail, client: "CloudTrailClient", command: "ListEventDataStoresCommand", args: { NextToken: A.optStr, MaxResults: A.optInt }, example: {} }),

  sdkRead({ name: "aws.iam.listUsers", action: "iam:ListUsers", summary: "IAM users (key hygiene)", sdk: sdk_iam, client: "IAMClient", command: "ListUsersCommand", args: { PathPrefix: A.optStr, Marker: A.optStr, MaxItems: A.optInt }, example: {} }),
  sdkRead({ name: "aws.iam.listAccessKeys", action: "iam:ListAccessKeys", summary: "access key ids and ages of a user (never secrets)", sdk: sdk_iam, client: "IAMClient", command: "ListAccessKeysCommand", args: { UserName: A.optStr, Marker: A.optStr, MaxItems: A.optInt }, example: {} }),
  sdkRead({ name: "aws.iam.getAccessKeyLastUsed", action: "iam:GetAccessKeyLastUsed", summary: "when an access key was last used", sdk: sdk_iam, client: "IAMClient", command: "GetAccessKeyLastUsedCommand", args: { AccessKeyId: Type.String({ pattern: "^[A-Z0-9]{16,128}$" }) }, example: { AccessKeyId: "AKIAIOSFODNN7EXAMPLE" } }),

  sdkRead({ name: "aws.quicksight.listDashboards", action: "quicksight:ListDashboards", summary: "BI dashboards", sdk: sdk_quicksight, client: "QuickSightClient", command: "ListDashboardsCommand", args: { ...account, NextToken: A.optStr, MaxResults: A.optInt }, example: { AwsAccountId: "123456789012" } }),
  sdkRead({ name: "aws.quicksight.describeDashboard", action: "quicksight:DescribeDashboard", summary: "a BI dashboard", sdk: sdk_quicksight, client: "QuickSightClient", command: "DescribeDashboardCommand", args: { ...account, DashboardId: A.str, VersionNumber: A.optInt }, example: { AwsAccountId: "123456789012", DashboardId: "revenue" } }),
  sdkRead({ name: "aws.quicksight.searchDashboards", action: "quicksight:SearchDashboards", summary: "search BI dashboards", sdk: sdk_quicksight, client: "QuickSightClient", command: "SearchDashboardsCommand", args: { ...account, Filters: Type.Array(Type.Object({ Operator: Type.Union([Type.Literal("StringEquals"), Type.Literal("StringLike")]), Name: A.str, Value: A.str }, { additionalProperties: false }), { minItems: 1, maxItems: 1 }), NextToken: A.optStr, MaxResults: A.optInt }, example: { AwsAccountId: "123456789012", Filters: [{ Operator: "StringLike", Name: "DASHBOARD_NAME", Value: "revenue" }] } }),
];
