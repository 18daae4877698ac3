import { Type } from "@sinclair/typebox";
import { A, period, sdkRead } from "./sdk-operation.ts";

// SDK modules load on first use: a command that never touches a service never pays for it.
const sdk_cost_explorer = () => import("@aws-sdk/client-cost-explorer");
const sdk_compute_optimizer = () => import("@aws-sdk/client-compute-optimizer");
const sdk_organizations = () => import("@aws-sdk/client-organizations");
const sdk_sts = () => import("@aws-sdk/client-sts");

// Statements IdentidadeEContexto and CustoEFinOps.

const granularity = Type.Optional(Type.Union([Type.Literal("DAILY"), Type.Literal("MONTHLY"), Type.Literal("HOURLY")]));
const groupBy = Type.Optional(Type.Array(Type.Object({ Type: Type.String(), Key: Type.String() }, { additionalProperties: false })));
const co = { nextToken: A.optStr, maxResults: A.optInt };

export const contextAndCostOperations = [
  sdkRead({ name: "aws.sts.getCallerIdentity", action: "sts:GetCallerIdentity", summary: "account and identity of the credential", sdk: sdk_sts, client: "STSClient", command: "GetCallerIdentityCommand", args: {}, example: {} }),
  sdkRead({ name: "aws.organizations.describeOrganization", action: "organizations:DescribeOrganization", summary: "organization of the account", sdk: sdk_organizations, client: "OrganizationsClient", command: "DescribeOrganizationCommand", args: {}, example: {} }),
  sdkRead({ name: "aws.organizations.listAccounts", action: "organizations:ListAccounts", summary: "accounts of the organization", sdk: sdk_organizations, client: "OrganizationsClient", command: "ListAccountsCommand", args: { NextToken: A.optStr, MaxResults: A.optInt }, example: {} }),

  sdkRead({ name: "aws.ce.getCostAndUsage", action: "ce:GetCostAndUsage", summary: "cost and usage over a period", sdk: sdk_cost_explorer, client: "CostExplorerClient", command: "GetCostAndUsageCommand", args: { TimePeriod: period, Granularity: Type.Union([Type.Literal("DAILY"), Type.Literal("MONTHLY"), Type.Literal("HOURLY")]), Metrics: A.strs, GroupBy: groupBy, Filter: A.json, NextPageToken: A.optStr }, example: { TimePeriod: { Start: "2026-10-01", End: "2026-11-01" }, Granularity: "MONTHLY", Metrics: ["UnblendedCost"] } }),
  sdkRead({ name: "aws.ce.getAnomalies", action: "ce:GetAnomalies", summary: "cost anomalies", sdk: sdk_cost_explorer, client: "CostExplorerClient", command: "GetAnomaliesCommand", args: { DateInterval: Type.Object({ StartDate: A.day, EndDate: Type.Optional(A.day) }, { additionalProperties: false }), MonitorArn: A.optStr, MaxResults: A.optInt, NextPageToken: A.optStr }, example: { DateInterval: { StartDate: "2026-10-01" } } }),
  sdkRead({ name: "aws.ce.getReservationCoverage", action: "ce:GetReservationCoverage", summary: "reservation coverage", sdk: sdk_cost_explorer, client: "CostExplorerClient", command: "GetReservationCoverageCommand", args: { TimePeriod: period, Granularity: granularity, GroupBy: groupBy, NextPageToken: A.optStr }, example: { TimePeriod: { Start: "2026-10-01", End: "2026-11-01" } } }),
  sdkRead({ name: "aws.ce.getReservationPurchaseRecommendation", action: "ce:GetReservationPurchaseRecommendation", summary: "reservation purchase recommendations", sdk: sdk_cost_explorer, client: "CostExplorerClient", command: "GetReservationPurchaseRecommendationCommand", args: { Service: A.str, LookbackPeriodInDays: A.optStr, TermInYears: A.optStr, PaymentOption: A.optStr, NextPageToken: A.optStr }, example: { Service: "Amazon Elastic Compute Cloud - Compute" } }),
  sdkRead({ name: "aws.ce.getSavingsPlansCoverage", action: "ce:GetSavingsPlansCoverage", summary: "savings plans coverage", sdk: sdk_cost_explorer, client: "CostExplorerClient", command: "GetSavingsPlansCoverageCommand", args: { TimePeriod: period, Granularity: granularity, NextToken: A.optStr, MaxResults: A.optInt }, example: { TimePeriod: { Start: "2026-10-01", End: "2026-11-01" } } }),
  sdkRead({ name: "aws.ce.getSavingsPlansPurchaseRecommendation", action: "ce:GetSavingsPlansPurchaseRecommendation", summary: "savings plans purchase recommendations", sdk: sdk_cost_explorer, client: "CostExplorerClient", command: "GetSavingsPlansPurchaseRecommendationCommand", args: { SavingsPlansType: A.str, TermInYears: A.str, PaymentOption: A.str, LookbackPeriodInDays: A.str, NextPageToken: A.optStr }, example: { SavingsPlansType: "COMPUTE_SP", TermInYears: "ONE_YEAR", PaymentOption: "NO_UPFRONT", LookbackPeriodInDays: "THIRTY_DAYS" } }),

  sdkRead({ name: "aws.computeOptimizer.getEnrollmentStatus", action: "compute-optimizer:GetEnrollmentStatus", summary: "whether Compute Optimizer is enabled", sdk: sdk_compute_optimizer, client: "ComputeOptimizerClient", command: "GetEnrollmentStatusCommand", args: {}, example: {} }),
  sdkRead({ name: "aws.computeOptimizer.getEC2InstanceRecommendations", action: "compute-optimizer:GetEC2InstanceRecommendations", summary: "EC2 rightsizing", sdk: sdk_compute_optimizer, client: "ComputeOptimizerClient", command: "GetEC2InstanceRecommendationsCommand", args: { instanceArns: A.optStrs, ...co }, example: {} }),
  sdkRead({ name: "aws.computeOptimizer.getEBSVolumeRecommendations", action: "compute-optimizer:GetEBSVolumeRecommendations", summary: "EBS rightsizing", sdk: sdk_compute_optimizer, client: "ComputeOptimizerClient", command: "GetEBSVolumeRecommendationsCommand", args: { volumeArns: A.optStrs, ...co }, example: {} }),
  sdkRead({ name: "aws.computeOptimizer.getLambdaFunctionRecommendations", action: "compute-optimizer:GetLambdaFunctionRecommendations", summary: "Lambda memory recommendations", sdk: sdk_compute_optimizer, client: "ComputeOptimizerClient", command: "GetLambdaFunctionRecommendationsCommand", args: { functionArns: A.optStrs, ...co }, example: {} }),
  sdkRead({ name: "aws.computeOptimizer.getAutoScalingGroupRecommendations", action: "compute-optimizer:GetAutoScalingGroupRecommendations", summary: "Auto Scaling group recommendations", sdk: sdk_compute_optimizer, client: "ComputeOptimizerClient", command: "GetAutoScalingGroupRecommendationsCommand", args: { autoScalingGroupArns: A.optStrs, ...co }, example: {} }),
  sdkRead({ name: "aws.computeOptimizer.getRDSDatabaseRecommendations", action: "compute-optimizer:GetRDSDatabaseRecommendations", summary: "RDS recommendations", sdk: sdk_compute_optimizer, client: "ComputeOptimizerClient", command: "GetRDSDatabaseRecommendationsCommand", args: { resourceArns: A.optStrs, ...co }, example: {} }),
];
