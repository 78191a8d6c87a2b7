/// The numeric codes the seeds' callbacks report (the MTPush iOS client code table): 0 is success.
public enum PushBusCode {
    public static let success = 0
    public static let appKeyInvalid = 1008
    public static let emptyRequest = 6001
    public static let timeout = 6002
    public static let aliasCharset = 6003
    public static let aliasTooLong = 6004
    public static let tagCharset = 6005
    public static let tagTooLong = 6006
    public static let tooManyTags = 6007
    public static let tagsTooLarge = 6008
    public static let unknownError = 6009
    public static let tooFrequent = 6011
    public static let invalidRequest = 6017
    public static let tagsInProgress = 6021
    public static let aliasInProgress = 6022
    public static let mobileFormat = 6023
    public static let internalError = 6024
    public static let mobileTooLong = 6025
    // MA (seed 003)
    public static let maFailed = -1
    public static let maNotStarted = -2
    public static let maInvalidParameter = -3
}
